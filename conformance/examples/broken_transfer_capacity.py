"""Broken engine: transfers to a next defender who holds too few cards (transfer.capacity)."""

from durak_spec.conformance.examples.broken import BrokenEngine, main


class TransferIgnoresCapacity(BrokenEngine):
    breaks = "transfer.capacity"
    wrong = "transfers to a defender with too few cards"
    edit = ("rules/transfer.yaml",
            "clause: \"opt.transfer_capacity_check == 'none' or hand(transfer_target)",
            "clause: \"True or hand(transfer_target)")


if __name__ == "__main__":
    main(TransferIgnoresCapacity)
