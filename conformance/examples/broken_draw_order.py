"""Broken engine: the defender draws first after a bout, before the main attacker (draw.order)."""

from durak_spec.conformance.examples.broken import BrokenEngine, main


class DefenderDrawsFirst(BrokenEngine):
    breaks = "draw.order"
    wrong = "the defender draws first"
    edit = ("rules/draw.yaml", "(players if seat == defender else", "(-1 if seat == defender else")


if __name__ == "__main__":
    main(DefenderDrawsFirst)
