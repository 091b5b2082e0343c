#!/usr/bin/env node
// tavern: a podkidnoy engine as a JavaScript app would have it, written apart from durak-spec (it
// started from engine.js's plumbing, part 2, and has rules of its own). Its table plays two house
// rules, declared in hello: anyone but the defender adds cards in any order (thrower_order
// free_for_all) and the main attacker's one "done" ends the adding for everyone (done_by
// main_attacker); a defender who takes gets no more cards (throw_in_after_take false). It lists
// its moves seat by seat, and starts from a deal or a mid-deal position.
//
//     durak check --adapter "cmd:node conformance/examples/javascript/tavern.js"
//     durak fuzz --adapter "cmd:node conformance/examples/javascript/tavern.js --bug join-order-draw"
//
// `--bug NAME` (repeatable) switches on a classic bug (bench/independent_engines.py):
//   join-order-draw  after a bout the attackers draw in the order they joined it (draw.order)
//   adds-after-take  cards are still added after a take, which its table forbids (throw_in.after_take)
//   attacker-again   after a take the same main attacker attacks again (rotation.after_take)

'use strict';

const readline = require('node:readline');

const RANKS = '6789TJQKA';
const SUITS = 'SCDH';
const REFILL = 6;
const MAX_PER_BOUT = 6;
const BUG_NAMES = ['join-order-draw', 'adds-after-take', 'attacker-again'];

const bugs = new Set();
{
  const args = process.argv.slice(2);
  while (args.length) {
    const flag = args.shift();
    const name = args.shift();
    if (flag !== '--bug' || !BUG_NAMES.includes(name)) {
      process.stderr.write(`usage: tavern.js [--bug ${BUG_NAMES.join('|')}]...\n`);
      process.exit(2);
    }
    bugs.add(name);
  }
}

// What the table plays: podkidnoy with its three house rules.
const HOUSE = { thrower_order: 'free_for_all', done_by: 'main_attacker', throw_in_after_take: false };
const PODKIDNOY = {
  deck_cards: 36, jokers: 'none', packs: 1, trump: 'turn_up', weli: 'none', max_attack_cards: 6,
  defender_hand_bound: 'start_of_bout', first_bout_max: null, opening: 'single',
  throwers: 'all_opponents', pile_on: 'after_first_beat', throw_in_match: 'rank_any_table_card',
  pass_is_final: false, transfer: false, draw_order: 'attacker_clockwise_defender_last',
  hand_size: 6, first_attacker: 'lowest_trump', going_out: 'end_of_bout',
  no_trump_lead: 'left_of_dealer', simultaneous_finish: 'draw', deal_ends: 'last_holding',
  teams: 'none', turn_up_place: 'bottom', passport: 'none', trump_exchange: 'none',
  changeable_trump: false, redeal: 'none', ...HOUSE,
};

class Skip extends Error {}

const rankOf = (c) => RANKS.indexOf(c[0]);
const suitOf = (c) => c[1];

function cardOf(text) {
  const t = String(text).toUpperCase().replace('10', 'T');
  if (t.length !== 2 || !RANKS.includes(t[0]) || !SUITS.includes(t[1])) {
    throw new Error(`bad card ${JSON.stringify(text)}`);
  }
  return t;
}

class Table {
  constructor(setup) {
    const n = setup.hands.length;
    if (n < 2 || n > 6) throw new Skip('the tavern seats two to six');
    this.seats = setup.hands.map((h, i) => ({ hand: h.map(cardOf), out: (setup.out || []).includes(i) }));
    this.deck = (setup.talon || []).map(cardOf);
    this.trumpCard = cardOf(setup.trump);
    this.over = false;
    this.durak = null;
    const main = setup.attacker ?? this.opener(setup.dealer ?? n - 1);
    this.newBout(main, setup.defender ?? this.leftOf(main));
    const pairs = (setup.table || []).map(([a, d]) => ({ attack: cardOf(a), cover: d == null ? null : cardOf(d) }));
    this.bout.pairs = pairs;
    this.bout.taking = Boolean(setup.taking);
    this.bout.done = (setup.passed || []).includes(main);
    this.bout.startHand += pairs.filter((p) => p.cover).length;
    this.settle();
  }

  get n() { return this.seats.length; }

  leftOf(seat) {
    for (let k = 1; k < this.n; k++) {
      const s = (seat + k) % this.n;
      if (!this.seats[s].out) return s;
    }
    return seat;
  }

  opener(dealer) {
    let best = null;
    this.seats.forEach((seat, i) => seat.hand.forEach((c) => {
      if (suitOf(c) === suitOf(this.trumpCard) && (!best || rankOf(c) < best.r)) best = { r: rankOf(c), i };
    }));
    return best ? best.i : (dealer + 1) % this.n;
  }

  newBout(main, defender) {
    this.bout = {
      main, defender, pairs: [], joined: [], taking: false, done: false,
      startHand: this.seats[defender].hand.length,
    };
  }

  beats(low, high) {
    if (suitOf(low) === suitOf(high)) return rankOf(high) > rankOf(low);
    return suitOf(high) === suitOf(this.trumpCard);
  }

  open() { return this.bout.pairs.filter((p) => !p.cover); }

  canAdd(seat, c) {
    const b = this.bout;
    if (!b.pairs.length || b.done || seat === b.defender || this.seats[seat].out) return false;
    if (b.taking && !bugs.has('adds-after-take')) return false; // no cards after a take here
    if (!b.taking && this.open().length === b.pairs.length) return false; // nothing beaten yet
    const ranks = new Set(b.pairs.flatMap((p) => [p.attack, p.cover]).filter(Boolean).map(rankOf));
    return this.seats[seat].hand.includes(c) && ranks.has(rankOf(c))
      && b.pairs.length < Math.min(MAX_PER_BOUT, b.startHand);
  }

  addersNow() {
    return this.seats.map((_, i) => i).filter((i) => this.seats[i].hand.some((c) => this.canAdd(i, c)));
  }

  moves() {
    if (this.over) return [];
    const b = this.bout;
    if (!b.pairs.length) return this.seats[b.main].hand.map((c) => ({ t: 'lead', seat: b.main, c }));
    const out = [];
    const adders = this.addersNow();
    for (let i = 0; i < this.n; i++) {
      if (i === b.defender) {
        if (!b.taking && this.open().length) {
          for (const p of this.open()) {
            for (const c of this.seats[i].hand) {
              if (this.beats(p.attack, c)) out.push({ t: 'cover', seat: i, on: p.attack, c });
            }
          }
          out.push({ t: 'take', seat: i });
        }
        continue;
      }
      for (const c of this.seats[i].hand) if (this.canAdd(i, c)) out.push({ t: 'add', seat: i, c });
      if (i === b.main && adders.length) out.push({ t: 'done', seat: i });
    }
    return out;
  }

  play(m) {
    const b = this.bout;
    const hand = this.seats[m.seat].hand;
    if (m.t === 'lead' || m.t === 'add') {
      hand.splice(hand.indexOf(m.c), 1);
      b.pairs.push({ attack: m.c, cover: null });
      if (!b.joined.includes(m.seat)) b.joined.push(m.seat);
    } else if (m.t === 'cover') {
      hand.splice(hand.indexOf(m.c), 1);
      b.pairs.find((p) => p.attack === m.on && !p.cover).cover = m.c;
      b.done = false;
    } else if (m.t === 'take') {
      b.taking = true;
      b.done = false;
    } else {
      b.done = true;
    }
    this.settle();
  }

  settle() {
    const b = this.bout;
    if (!b.pairs.length || this.over) return;
    if (b.taking) {
      if (!this.addersNow().length) {
        for (const p of b.pairs) this.seats[b.defender].hand.push(...[p.attack, p.cover].filter(Boolean));
        this.finishBout(false);
      }
    } else if (!this.open().length && (!this.seats[b.defender].hand.length || !this.addersNow().length)) {
      this.finishBout(true);
    }
  }

  drawers() {
    const b = this.bout;
    const around = [];
    for (let k = 0; k < this.n; k++) {
      const s = (b.main + k) % this.n;
      if (!this.seats[s].out && s !== b.defender) around.push(s);
    }
    if (bugs.has('join-order-draw')) {
      const first = [b.main, ...b.joined.filter((s) => s !== b.main && s !== b.defender)];
      return [...new Set([...first, ...around]), b.defender];
    }
    return [...around, b.defender];
  }

  finishBout(beaten) {
    const b = this.bout;
    for (const s of this.drawers()) {
      const hand = this.seats[s].hand;
      while (hand.length < REFILL && this.deck.length) hand.push(this.deck.shift());
    }
    b.pairs = [];
    this.seats.forEach((seat) => { if (!seat.hand.length && !this.deck.length) seat.out = true; });
    const holding = this.seats.map((_, i) => i).filter((i) => !this.seats[i].out);
    if (!this.deck.length && holding.length <= 1) {
      this.over = true;
      this.durak = holding.length ? holding[0] : null;
      return;
    }
    let main;
    if (beaten) main = this.seats[b.defender].out ? this.leftOf(b.defender) : b.defender;
    else if (bugs.has('attacker-again') && !this.seats[b.main].out) main = b.main;
    else main = this.leftOf(b.defender);
    this.newBout(main, this.leftOf(main));
  }

  discards() {
    const inHands = this.seats.reduce((k, s) => k + s.hand.length, 0);
    const onTable = this.bout.pairs.reduce((k, p) => k + 1 + (p.cover ? 1 : 0), 0);
    return 36 - this.deck.length - inHands - onTable;
  }
}

// -- the protocol ------------------------------------------------------------------------------
const WORDS = { lead: 'attack', add: 'throw', cover: 'cover', take: 'take', done: 'pass' };

function text(m) {
  if (m.t === 'cover') return `${m.seat} cover ${m.on} with ${m.c}`;
  return m.c ? `${m.seat} ${WORDS[m.t]} ${m.c}` : `${m.seat} ${WORDS[m.t]}`;
}

let table = null;

const COMMANDS = {
  hello: () => ({
    name: 'tavern', version: '2.1.0', protocol: '1.1', presets: ['podkidnoy'], players: [2, 3, 4, 5, 6],
    options: Object.fromEntries(Object.entries(HOUSE).map(([k, v]) => [k, [v]])),
    levels: ['verdicts', 'state', 'legal'], positions: true,
  }),
  start: (req) => {
    const options = (req.variant && req.variant.options) || {};
    for (const [k, v] of Object.entries(PODKIDNOY)) {
      if (k in options && JSON.stringify(options[k]) !== JSON.stringify(v)) {
        throw new Skip(`the tavern plays ${k} = ${JSON.stringify(v)}`);
      }
    }
    const setup = req.setup || {};
    const known = ['hands', 'talon', 'trump', 'dealer', 'attacker', 'table', 'defender', 'taking',
      'passed', 'out', 'bout', 'beaten_bouts', 'discard'];
    const odd = Object.keys(setup).filter((k) => !known.includes(k));
    if (odd.length) throw new Skip(`the tavern does not know ${odd.join(', ')}`);
    table = new Table(setup);
    return {};
  },
  apply: (req) => {
    const m = table.moves().find((x) => text(x) === String(req.action).trim());
    if (!m) return { accepted: false, reason: 'not a move at this table now' };
    table.play(m);
    return { accepted: true };
  },
  legal: () => ({ actions: table.moves().map(text) }),
  state: () => ({
    state: {
      hands: table.seats.map((s) => [...s.hand]),
      hand_sizes: table.seats.map((s) => s.hand.length),
      talon_count: table.deck.length,
      trump: table.trumpCard,
      table: table.bout.pairs.map((p) => [p.attack, p.cover]),
      discard_count: table.discards(),
      attacker: table.bout.main,
      defender: table.bout.defender,
      taking: table.bout.taking,
      out: table.seats.map((s, i) => (s.out ? i : -1)).filter((i) => i >= 0),
      finished: table.over,
      fool: table.durak,
    },
  }),
  stop: () => ({}),
};

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (!line.trim()) return;
  let req = {};
  let reply;
  try {
    req = JSON.parse(line);
    const command = COMMANDS[req.cmd];
    reply = command ? { result: command(req) } : { error: `unknown command ${req.cmd}` };
  } catch (e) {
    reply = e instanceof Skip ? { skipped: e.message } : { error: `${e.name}: ${e.message}` };
  }
  reply.id = Number.isInteger(req.id) ? req.id : 0;
  process.stdout.write(`${JSON.stringify(reply)}\n`);
  if (req.cmd === 'stop') lines.close();
});
