"""Functions as a team writes them, in each docstring style: `codegen import shop --from python`."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Literal, TypedDict


class Speed(enum.Enum):
    STANDARD = "standard"
    EXPRESS = "express"


@dataclass
class Address:
    """Where a parcel goes.

    Args:
        street: Street and number.
        city: The city.
    """

    street: str
    city: str
    country: str = "NL"
    notes: list[str] = field(default_factory=list)


class Money(TypedDict):
    amount: float
    currency: str


def place_order(
    item: str,
    quantity: int = 1,
    speed: Speed = Speed.STANDARD,
    address: Address | None = None,
    tags: list[str] | None = None,
) -> str:
    """Place an order for an item in the shop.

    The order is paid from the account's balance.

    Args:
        item: The item's catalogue number.
        quantity: How many to order.
        speed: How fast the parcel travels.
        address: Where to send it; the account's address when left out.
        tags: Labels to file the order under.
    """
    return item


def refund(order_id: int, amount: Money, reason: Literal["damaged", "late", "other"]) -> bool:
    """Refund an order.

    Parameters
    ----------
    order_id : int
        The order to refund.
    amount : Money
        How much to pay back.
    reason : str
        Why the order is refunded.
    """
    return True


def deliveries(
    since: date, limit: Annotated[int, "At most this many."] = 20, *args: int, **rest: str
) -> list[str]:
    """List deliveries since a date.

    :param since: The first day to list.
    """
    return []


def _helper() -> None:
    """Private: not a tool."""
