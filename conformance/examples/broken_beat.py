"""Broken engine: a higher plain card beats a plain card of any suit (defence.beat)."""

from durak_spec.conformance.examples.broken import BrokenEngine, main


class BeatAnySuit(BrokenEngine):
    breaks = "defence.beat"
    wrong = "a higher plain card beats any plain suit"
    edit = ("rules/defence.yaml", 'clause: "beats(card, target)"',
            'clause: "beats(card, target) or (not is_trump(card) and not is_trump(target) '
            'and card.rank > target.rank)"')


if __name__ == "__main__":
    main(BeatAnySuit)
