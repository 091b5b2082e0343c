"""An engine that can only deal: the reference interpreter declaring `positions: false`, as most
real engines are (PROTOCOL.md). Its `start` refuses a mid-deal position, so every case that starts
from one runs from the deal the suite finds for it (conformance/fromdeal.py).

    durak check --adapter python:durak_spec.conformance.examples.deal_only:DealOnlyEngine

bench/from_deal.py compares its runs with the same engine declaring positions.
"""

from durak_spec.conformance.engine import ReferenceEngine, Skip
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.reference_impl.game import POSITION_FIELDS


class DealOnlyEngine(ReferenceEngine):
    name = "reference (deals only)"

    def hello(self) -> dict:
        return {**super().hello(), "positions": False}

    def start(self, variant: dict, setup: dict) -> dict:
        if any(k in setup for k in POSITION_FIELDS if k != "discard"):
            raise Skip("this engine can only deal: a mid-deal position was sent")
        return super().start(variant, setup)


if __name__ == "__main__":
    serve(DealOnlyEngine())
