"""Broken engine: a higher plain card beats a plain card of any suit (defence.beat)."""

from durak_spec.conformance.examples.broken import BrokenEngine, main


class BeatAnySuit(BrokenEngine):
    breaks = "defence.beat"
    wrong = "a higher plain card beats any plain suit"
    edit = ("rules/defence.yaml", "(card.suit == target.suit and card.rank > target.rank)",
            "((card.suit == target.suit or not (card.is_trump or target.is_trump)) "
            "and card.rank > target.rank)")


if __name__ == "__main__":
    main(BeatAnySuit)
