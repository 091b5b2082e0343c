#!/usr/bin/env node
// A podkidnoy Durak engine in plain JavaScript that speaks the durak-spec protocol: the file to
// copy when your engine is not written in Python.
//
//     durak check --adapter "cmd:node conformance/examples/javascript/engine.js"
//     durak fuzz  --adapter "cmd:node conformance/examples/javascript/engine.js" --players 2
//
// It has two parts, and only the first is about Durak:
//
//   1. THE RULES: a small but complete podkidnoy (two to six players, a 36-card pack, throw-ins
//      by everyone but the defender, at most six attack cards, the attacker draws first and the
//      defender last, the last player holding cards is the fool). This is the part you replace:
//      keep the small class `Game` as the seam, and make its methods call into your engine.
//   2. THE PLUMBING: read one JSON request per line on stdin, write exactly one JSON answer per
//      line on stdout, declare what the engine can do in `hello`, and turn every failure into an
//      `error` answer instead of a crash. Keep this part as it is.
//
// The protocol is conformance/PROTOCOL.md; every message has a JSON Schema in
// conformance/schemas/protocol/. It needs node 18 or newer and nothing else: no npm install.

'use strict';

const readline = require('node:readline');

// ------------------------------------------------------------------------------------------------
// Part 1. The rules.
//
// Cards are strings in the protocol's notation: rank then suit, "TD" is the ten of diamonds.
// Seats are numbers from 0; seat i+1 sits to the left of seat i, and play goes to the left.
// ------------------------------------------------------------------------------------------------

const RANKS = '6789TJQKA';
const SUITS = 'SCDH';
const DECK_SIZE = RANKS.length * SUITS.length;
const HAND_SIZE = 6; // everyone draws up to six after a bout
const MAX_ATTACK = 6; // attack cards per bout, beaten ones included

// The option values of spec/options.yaml that this engine plays: podkidnoy's. `start` receives
// every option resolved; when one of these differs (somebody ran `durak check --option ...`), the
// engine answers `skipped`, saying which rule it does not play. Options that change nothing in
// this engine (those of transfers, matches, ...) are not listed, so they never cause a skip.
//
// An engine with house rules declares them in `hello` instead (see HELLO below): the suite then
// re-derives every expectation under them, so declaring more never means being tested less.
const PLAYS = {
  deck_cards: 36, jokers: 'none', packs: 1, spades_only_by_spades: false, redeal: 'none',
  trump: 'turn_up', weli: 'none', lowest_trump_beats_ace: false, max_attack_cards: MAX_ATTACK,
  defender_hand_bound: 'start_of_bout', first_bout_max: null, opening: 'single',
  throwers: 'all_opponents', thrower_order: 'attacker_priority', pile_on: 'after_first_beat',
  throw_in_match: 'rank_any_table_card', pass_is_final: false, done_by: 'each_attacker',
  throw_in_after_take: true, throw_in_limit: 'same_as_bout', pickup_limit: 'all',
  transfer: false, passport: 'none', trump_exchange: 'none', changeable_trump: false,
  poker_exchange_uses: 0, draw_order: 'attacker_clockwise_defender_last',
  turn_up_place: 'bottom', deal: 'hand_size', hand_size: HAND_SIZE, six_player_hand_size: HAND_SIZE,
  first_attacker: 'lowest_trump', going_out: 'end_of_bout', no_trump_lead: 'left_of_dealer',
  simultaneous_finish: 'draw', deal_ends: 'last_holding', teams: 'none',
};

// What `start` is given beyond hands, talon, trump and dealer. The position fields describe a
// game in the middle of a deal (the engine declares `positions: true`); the others belong to
// variants this engine does not play, so a setup that has them is skipped.
const POSITION_FIELDS = ['table', 'defender', 'taking', 'passed', 'out', 'bout', 'beaten_bouts',
  'discard'];
const DEAL_FIELDS = ['hands', 'talon', 'trump', 'dealer', 'attacker'];

/** An answer of `skipped`: the engine does not play this (a variant, a setup), and says why. */
class Skip extends Error {}

function rank(card) { return RANKS.indexOf(card[0]); }
function suit(card) { return card[1]; }

/** The canonical text of a card ("10s" -> "TS"), or an error naming it. */
function parseCard(text) {
  const t = String(text).toUpperCase().replace('10', 'T');
  if (t.length !== 2 || !RANKS.includes(t[0]) || !SUITS.includes(t[1])) {
    throw new Error(`not a card of the 36-card pack: ${JSON.stringify(text)}`);
  }
  return t;
}

/** One deal of podkidnoy. Moves are objects {kind, seat, card, target}, where kind is one of the
 * protocol's: attack (open a bout), throw (add a card), cover (target with card), take, pass. */
class Game {
  constructor(setup) {
    const hands = setup.hands;
    if (!Array.isArray(hands) || hands.length < 2 || hands.length > 6) {
      throw new Skip('this engine plays two to six players');
    }
    this.n = hands.length;
    this.hands = hands.map((h) => h.map(parseCard));
    this.talon = (setup.talon || []).map(parseCard); // top card first; the turn-up is last
    this.trump = parseCard(setup.trump); // the turned-up card: its suit is trumps
    this.table = (setup.table || []).map(([a, d]) => [parseCard(a), d == null ? null : parseCard(d)]);
    const seen = [...this.hands.flat(), ...this.talon, ...this.table.flat().filter(Boolean)];
    if (new Set(seen).size !== seen.length) throw new Error('the setup holds a card twice');
    const dealer = setup.dealer ?? this.n - 1;
    this.out = Array.from({ length: this.n }, (_, s) => (setup.out || []).includes(s));
    this.passed = new Set(setup.passed || []); // attackers who said "pass" since the last cover
    this.taking = Boolean(setup.taking); // the defender has said "take"
    this.finished = false;
    this.fool = null;
    this.attacker = setup.attacker ?? this.firstAttacker(dealer);
    this.defender = setup.defender ?? this.nextIn(this.attacker);
    // The defender's hand when the bout began bounds the attack: what they hold now plus the
    // cards they have covered with (a position may start in the middle of a bout).
    this.startHand = this.hands[this.defender].length + this.table.filter(([, d]) => d).length;
    this.settle(); // a position may already be a bout that nobody can continue
  }

  // -- seats and cards ---------------------------------------------------------------------------

  /** The next seat to the left that is still in the game. */
  nextIn(seat) {
    for (let step = 1; step < this.n; step++) {
      const s = (seat + step) % this.n;
      if (!this.out[s]) return s;
    }
    return seat;
  }

  /** The holder of the lowest trump leads; if nobody holds a trump, the dealer's left neighbour. */
  firstAttacker(dealer) {
    let best = null;
    this.hands.forEach((hand, seat) => {
      for (const c of hand) {
        if (suit(c) === suit(this.trump) && (best === null || rank(c) < best.rank)) {
          best = { rank: rank(c), seat };
        }
      }
    });
    return best ? best.seat : (dealer + 1) % this.n;
  }

  /** A higher card of the same suit beats a card; a trump beats any card that is not a trump. */
  beats(attack, cover) {
    if (suit(cover) === suit(attack)) return rank(cover) > rank(attack);
    return suit(cover) === suit(this.trump);
  }

  unbeaten() { return this.table.filter(([, d]) => d === null).map(([a]) => a); }

  discardCount() {
    const held = this.hands.reduce((sum, h) => sum + h.length, 0);
    return DECK_SIZE - this.talon.length - held - this.table.flat().filter(Boolean).length;
  }

  // -- who may do what ---------------------------------------------------------------------------

  /** May `seat` add card `c` to the bout now (leaving aside whose turn it is)? */
  mayAdd(seat, c) {
    const ranks = new Set(this.table.flat().filter(Boolean).map(rank));
    return this.table.length > 0 && seat !== this.defender && !this.out[seat]
      && !this.passed.has(seat) && this.hands[seat].includes(c) && ranks.has(rank(c))
      // cards are added once the defender has beaten a card, or after they said "take"
      && (this.taking || this.unbeaten().length < this.table.length)
      && this.table.length < Math.min(MAX_ATTACK, this.startHand);
  }

  /** The seats that could add a card now; only they may say "pass". */
  adders() {
    const seats = [];
    for (let s = 0; s < this.n; s++) {
      if (this.hands[s].some((c) => this.mayAdd(s, c))) seats.push(s);
    }
    return seats;
  }

  /** Who adds (or passes) first: the main attacker, then the others from the defender's left. */
  turn(adders) {
    const distance = (s) => (s === this.attacker ? 0 : (s - this.defender + this.n) % this.n);
    return adders.length ? adders.reduce((a, b) => (distance(b) < distance(a) ? b : a)) : null;
  }

  /** Every legal move of every seat. */
  moves() {
    if (this.finished) return [];
    if (this.table.length === 0) {
      return this.hands[this.attacker].map((card) => ({ kind: 'attack', seat: this.attacker, card }));
    }
    const out = [];
    const adders = this.adders();
    const seat = this.turn(adders);
    if (seat !== null) {
      for (const card of this.hands[seat]) {
        if (this.mayAdd(seat, card)) out.push({ kind: 'throw', seat, card });
      }
      out.push({ kind: 'pass', seat });
    }
    if (!this.taking && this.unbeaten().length) {
      const d = this.defender;
      for (const target of this.unbeaten()) {
        for (const card of this.hands[d]) {
          if (this.beats(target, card)) out.push({ kind: 'cover', seat: d, target, card });
        }
      }
      out.push({ kind: 'take', seat: d });
    }
    return out;
  }

  // -- playing -----------------------------------------------------------------------------------

  /** Make a legal move (the caller has checked that it is one). */
  play(move) {
    const hand = this.hands[move.seat];
    if (move.kind === 'attack' || move.kind === 'throw') {
      hand.splice(hand.indexOf(move.card), 1);
      this.table.push([move.card, null]);
    } else if (move.kind === 'cover') {
      hand.splice(hand.indexOf(move.card), 1);
      this.table.find(([a, d]) => a === move.target && d === null)[1] = move.card;
      this.passed.clear(); // a cover gives everyone a new chance to add
    } else if (move.kind === 'take') {
      this.taking = true;
      this.passed.clear();
    } else {
      this.passed.add(move.seat);
    }
    this.settle();
  }

  /** End the bout once nobody will or may add another card. */
  settle() {
    if (!this.table.length || this.finished) return;
    if (this.taking) {
      if (!this.adders().length) {
        this.hands[this.defender].push(...this.table.flat().filter(Boolean));
        this.endBout(false);
      }
    } else if (!this.unbeaten().length
               && (!this.hands[this.defender].length || !this.adders().length)) {
      this.endBout(true);
    }
  }

  /** Who draws, in order: the main attacker, the others to the left, the defender last. */
  drawOrder() {
    const order = [];
    for (let step = 0; step < this.n; step++) {
      const s = (this.attacker + step) % this.n;
      if (!this.out[s] && s !== this.defender) order.push(s);
    }
    return [...order, this.defender];
  }

  endBout(beaten) {
    this.table = [];
    for (const s of this.drawOrder()) {
      const need = Math.max(0, HAND_SIZE - this.hands[s].length);
      this.hands[s].push(...this.talon.splice(0, need));
    }
    for (let s = 0; s < this.n; s++) {
      if (!this.hands[s].length && !this.talon.length) this.out[s] = true;
    }
    const left = [...Array(this.n).keys()].filter((s) => !this.out[s]);
    if (!this.talon.length && left.length <= 1) {
      this.finished = true;
      this.fool = left.length ? left[0] : null; // nobody left holding cards: a draw
      return;
    }
    // After a beaten-off bout the defender attacks next; after a take, the player to their left.
    const d = this.defender;
    this.attacker = beaten && !this.out[d] ? d : this.nextIn(d);
    this.defender = this.nextIn(this.attacker);
    this.startHand = this.hands[this.defender].length;
    this.taking = false;
    this.passed.clear();
  }
}

// ------------------------------------------------------------------------------------------------
// Part 2. The plumbing: the protocol's commands over your engine.
// ------------------------------------------------------------------------------------------------

// Version 1.1 of the protocol. What the engine declares decides what the suite asks of it: only
// what is declared is tested, and a case that needs more is skipped with the reason.
const HELLO = {
  name: 'durak-js-example',
  version: '1.0.0',
  protocol: '1.1',
  presets: ['podkidnoy'], // a case under another preset runs under the closest one declared
  players: [2, 3, 4, 5, 6],
  // House rules, as {option: [values it plays, its default first]}; podkidnoy's own values need
  // no declaring. E.g. an engine that lets anyone add at any time: {thrower_order: ['free_for_all']}.
  options: {},
  levels: ['verdicts', 'state', 'legal'], // accepts or rejects, shows its state, lists its moves
  positions: true, // `start` accepts a position in the middle of a deal
  step: true, // answers `step`: several actions in one request (fuzzing is faster with it)
};

/** A move in the protocol's canonical action text: "1 cover 9S with JS". */
function actionText(m) {
  if (m.kind === 'cover') return `${m.seat} cover ${m.target} with ${m.card}`;
  return m.card ? `${m.seat} ${m.kind} ${m.card}` : `${m.seat} ${m.kind}`;
}

/** The canonical text of an action as written by anyone ("1 cover 10s with js"), or null. */
function canonical(text) {
  const w = String(text).trim().split(/\s+/);
  try {
    if (!/^\d+$/.test(w[0])) return null;
    const seat = Number(w[0]);
    if (w[1] === 'cover' && w.length === 5 && w[3] === 'with') {
      return actionText({ kind: 'cover', seat, target: parseCard(w[2]), card: parseCard(w[4]) });
    }
    if ((w[1] === 'attack' || w[1] === 'throw') && w.length === 3) {
      return actionText({ kind: w[1], seat, card: parseCard(w[2]) });
    }
    if ((w[1] === 'take' || w[1] === 'pass') && w.length === 2) return `${seat} ${w[1]}`;
  } catch (e) {
    return null; // a card that is not a card: the action is simply not legal
  }
  return null; // transfers and the other kinds are not moves of podkidnoy
}

/** The engine behind the protocol: one method per command, returning the command's result. */
class Engine {
  constructor() { this.game = null; }

  hello() { return HELLO; }

  start(variant, setup) {
    const options = (variant && variant.options) || {};
    for (const [name, value] of Object.entries(PLAYS)) {
      if (name in options && JSON.stringify(options[name]) !== JSON.stringify(value)) {
        throw new Skip(`this engine plays ${name} = ${JSON.stringify(value)}, `
          + `not ${JSON.stringify(options[name])}`);
      }
    }
    const unknown = Object.keys(setup).filter((k) => !DEAL_FIELDS.includes(k)
      && !POSITION_FIELDS.includes(k));
    if (unknown.length) throw new Skip(`this engine does not play setups with ${unknown.join(', ')}`);
    // `bout`, `beaten_bouts` and `discard` change nothing in podkidnoy as this engine plays it
    // (no first-bout limit; the discard is the cards of the pack found nowhere else).
    this.game = new Game(setup);
    return {};
  }

  apply(action) {
    const game = this.current();
    const text = canonical(action);
    const move = game.moves().find((m) => actionText(m) === text);
    if (!move) return { accepted: false, reason: `${action} is not a legal move now` };
    game.play(move);
    return { accepted: true };
  }

  legal() { return { actions: this.current().moves().map(actionText) }; }

  state() {
    const g = this.current();
    return {
      state: {
        hands: g.hands.map((h) => [...h]),
        hand_sizes: g.hands.map((h) => h.length),
        talon_count: g.talon.length,
        trump: g.trump,
        table: g.table.map(([a, d]) => [a, d]),
        discard_count: g.discardCount(),
        attacker: g.attacker,
        defender: g.defender,
        taking: g.taking,
        out: [...g.out.keys()].filter((s) => g.out[s]),
        finished: g.finished,
        fool: g.fool,
      },
    };
  }

  /** `step`: each action in turn as `apply` would; after an accepted one, the state and the
   * legal actions when the request asks for them. */
  step(actions, withState, withLegal) {
    return {
      steps: actions.map((action) => {
        const verdict = this.apply(action);
        if (verdict.accepted && withState) verdict.state = this.state().state;
        if (verdict.accepted && withLegal) verdict.legal = this.legal().actions;
        return verdict;
      }),
    };
  }

  current() {
    if (!this.game) throw new Error('no game: send start first');
    return this.game;
  }
}

const engine = new Engine();
const COMMANDS = {
  hello: () => engine.hello(),
  start: (req) => engine.start(req.variant, req.setup || {}),
  apply: (req) => engine.apply(req.action),
  legal: () => engine.legal(),
  state: () => engine.state(),
  step: (req) => engine.step(req.actions || [], Boolean(req.state), Boolean(req.legal)),
  stop: () => ({}),
};

/** The one answer to one request line: result, skipped or error, never nothing. */
function answer(req) {
  const id = Number.isInteger(req && req.id) ? req.id : 0; // an answer always carries an id
  try {
    const command = COMMANDS[req && req.cmd];
    if (!command) return { id, error: `unknown command ${JSON.stringify(req && req.cmd)}` };
    return { id, result: command(req) };
  } catch (e) {
    if (e instanceof Skip) return { id, skipped: e.message };
    return { id, error: `${e.name}: ${e.message}` }; // report, never die
  }
}

// Requests arrive one per line; each gets its line at once. Writes to a pipe are synchronous in
// node on Linux and macOS, so an answer is out before the next request is read. Nothing else may
// go to stdout: print your debugging to stderr (console.error), which the runner keeps.
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let stopped = false;
lines.on('line', (line) => {
  if (stopped || !line.trim()) return;
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ id: 0, error: `not JSON: ${e.message}` })}\n`);
    return;
  }
  const reply = answer(req);
  process.stdout.write(`${JSON.stringify(reply)}\n`);
  if (req.cmd === 'stop') {
    stopped = true; // after `stop`, the engine exits
    lines.close();
  }
});
