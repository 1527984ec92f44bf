"""moto's SQS backend, with its per-call cost made independent of the queue's depth.

moto (5.2) recomputes every queue attribute — three of them by scanning every message in the queue, each
message's visibility read through a ``datetime`` clock — once for every message sent (to read
``ContentBasedDeduplication``) and once for every message received (to read ``MessageRetentionPeriod``),
and a batch delete scans and rebuilds the queue once per entry. A receive of 10 from a queue 1,500
deep took ~2 s and a SendMessageBatch of 10 ~0.7 s (bench/throughput.py, 2026-12-06): the emulator,
not the worker, bounded every local run with a backlog, and an import of thousands of memories
(``hindsight ingest``) slowed down quadratically. SQS itself does none of this.

``speed_up()`` replaces those hot spots with equivalents that read the one attribute they need, count
the messages in one pass with the wall clock (``time.time()``, what moto's ``unix_time()`` computes
through ``datetime``), and delete a batch in one pass. Messages, receipt handles, visibility, redrive to
the dead-letter queue, retention and the queue attributes clients read are unchanged
(tests/unit/test_moto_sqs.py compares them with moto's own). It runs in the emulator's process
(``sqs_emulator.SqsEmulator``), before moto's server starts; moto is imported only then.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

log = logging.getLogger(__name__)

_applied = False
_local = threading.local()
"""Per server thread: ``sending`` while a SendMessage runs (it reads only ``ContentBasedDeduplication`` of
the attributes it computes); ``counts``, the queue counts of the attributes being computed."""


def speed_up() -> bool:
    """Patch moto's SQS backend in this process (idempotent). Returns whether the patches are in place:
    False, with a warning, when this moto lacks one of the functions they replace (moto is then as it
    was, only slower)."""
    global _applied
    if _applied:
        return True
    from moto.sqs import models

    needed = [
        (models, "unix_time"),
        (models, "unix_time_millis"),
        (models.Queue, "approximate_number_of_messages"),
        (models.Queue, "approximate_number_of_messages_delayed"),
        (models.Queue, "approximate_number_of_messages_not_visible"),
        (models.Queue, "attributes"),
        (models.SQSBackend, "send_message"),
        (models.SQSBackend, "get_queue_attributes"),
        (models.SQSBackend, "delete_message_batch"),
        (models.SQSBackend, "is_message_valid_based_on_retention_period"),
    ]
    missing = [name for owner, name in needed if not hasattr(owner, name)]
    if missing:
        log.warning("moto's SQS lacks %s: the emulator runs unpatched", ", ".join(missing))
        return False
    _patch_clock(models)
    _patch_counts(models)
    _patch_backend(models)
    _applied = True
    return True


def _patch_clock(models: Any) -> None:
    """``unix_time()`` / ``unix_time_millis()`` without an argument are the wall clock; moto builds two
    ``datetime`` objects for each (tens of µs, read twice per message per scan)."""
    slow_s, slow_ms = models.unix_time, models.unix_time_millis

    def unix_time(dt: Any = None) -> float:
        return time.time() if dt is None else float(slow_s(dt))

    def unix_time_millis(dt: Any = None) -> float:
        return time.time() * 1000.0 if dt is None else float(slow_ms(dt))

    models.unix_time, models.unix_time_millis = unix_time, unix_time_millis


def _counts(queue: Any) -> tuple[int, int, int]:
    """(visible, delayed, not visible) messages of ``queue`` in one pass, as moto's three properties
    count them (a delayed message that is visible counts as delayed, not as visible)."""
    now = time.time() * 1000.0
    visible = delayed = hidden = 0
    for message in queue._messages:
        is_delayed = now < message.delayed_until
        is_visible = now > message.visible_at
        delayed += is_delayed
        hidden += not is_visible
        visible += is_visible and not is_delayed
    return visible, delayed, hidden


def _patch_counts(models: Any) -> None:
    """The three approximate counts: one pass each, and none at all inside a SendMessage (which reads
    only ``ContentBasedDeduplication`` of the attributes it computes)."""
    queue_type = models.Queue
    original_attributes = queue_type.attributes.fget

    def attributes(self: Any) -> dict[str, Any]:
        _local.counts = (self, (0, 0, 0) if getattr(_local, "sending", False) else _counts(self))
        try:
            return dict(original_attributes(self))
        finally:
            _local.counts = None

    def count(index: int) -> property:
        def get(self: Any) -> int:
            cached = getattr(_local, "counts", None)
            counts = cached[1] if cached is not None and cached[0] is self else _counts(self)
            return int(counts[index])

        return property(get)

    queue_type.approximate_number_of_messages = count(0)
    queue_type.approximate_number_of_messages_delayed = count(1)
    queue_type.approximate_number_of_messages_not_visible = count(2)
    queue_type.attributes = property(attributes)


def _patch_backend(models: Any) -> None:
    backend = models.SQSBackend
    original_send = backend.send_message

    def send_message(self: Any, *args: Any, **kwargs: Any) -> Any:
        _local.sending = True
        try:
            return original_send(self, *args, **kwargs)
        finally:
            _local.sending = False

    def get_queue_attributes(self: Any, queue_name: str, attribute_names: list[str]) -> dict[str, Any]:
        """moto's, computing the attributes once instead of twice per name asked for."""
        queue = self.get_queue(queue_name)
        if not attribute_names:
            return {}
        valid = ["All", *queue.BASE_ATTRIBUTES, *queue.FIFO_ATTRIBUTES, *queue.KMS_ATTRIBUTES]
        invalid = next((name for name in attribute_names if name not in valid), None)
        if invalid or invalid == "":
            raise models.InvalidAttributeName(invalid)
        every = queue.attributes
        if "All" in attribute_names:
            return dict(every)
        return {name: every[name] for name in attribute_names if every.get(name) is not None}

    def is_message_valid_based_on_retention_period(self: Any, queue_name: str, message: Any) -> bool:
        """moto's, reading the one attribute instead of all of them."""
        retention_s = int(self.get_queue(queue_name).message_retention_period)
        return bool(retention_s + message.sent_timestamp / 1000 > time.time())

    def delete_message_batch(
        self: Any, queue_name: str, receipts: list[dict[str, Any]]
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """moto's, in one pass over the queue instead of two per entry: an entry whose handle was already
        deleted succeeds again, one no message ever had fails with ReceiptHandleIsInvalid."""
        queue = self.get_queue(queue_name)
        wanted = {r["ReceiptHandle"] for r in receipts} - queue.deleted_messages
        owners: dict[str, Any] = {}
        if wanted:
            for message in queue._messages:
                for handle in message.all_receipt_handles:
                    if handle in wanted:
                        owners[handle] = message
        success: list[str] = []
        errors: list[dict[str, Any]] = []
        doomed: set[int] = set()
        for receipt in receipts:
            handle = receipt["ReceiptHandle"]
            if handle in queue.deleted_messages:
                success.append(receipt["Id"])
                continue
            message = owners.get(handle)
            if message is None:
                errors.append(
                    {
                        "Id": receipt["Id"],
                        "SenderFault": True,
                        "Code": "ReceiptHandleIsInvalid",
                        "Message": f'The input receipt handle "{handle}" is not a valid receipt handle.',
                    }
                )
                continue
            queue.pending_messages.discard(message)
            queue.deleted_messages.update(message.all_receipt_handles)
            doomed.add(id(message))
            success.append(receipt["Id"])
        if doomed:
            queue._messages = [m for m in queue._messages if id(m) not in doomed]
        return success, errors

    backend.send_message = send_message
    backend.get_queue_attributes = get_queue_attributes
    backend.is_message_valid_based_on_retention_period = is_message_valid_based_on_retention_period
    backend.delete_message_batch = delete_message_batch
