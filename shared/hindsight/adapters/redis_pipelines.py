"""Redis pipelines started in the same turn of the event loop, sent to Redis as one (issue 15, write ack).

A ``memory_write``'s acknowledgement makes two Redis requests beside its SendMessage: the rate limiter's
claim of the caller's next units (``RedisRateLimiter.lease``) and the operation log's entry
(``RedisOperationLog.record_queued``). Both start in the same turn of the loop, when the tool first waits
on the queue. Sent apart they took two pooled connections, two writes, two reads and two wake-ups of the
event loop and of Redis, in a process whose send thread needs the interpreter lock at that very moment;
``SharedPipelines`` puts both on one pipeline, sent at the end of that turn (bench/ab_write_ack.py).

Each command names one key and no MULTI is used, so a shared pipeline spans hash slots exactly as each
caller's own pipeline did (ElastiCache Serverless is cluster mode: a MULTI across slots fails with
CROSSSLOT, single-key commands do not). The client's retries on a connection error apply to the shared
pipeline as they did to each caller's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Turn:
    """The pipeline of one turn of the loop and who queued what on it: (first command, end, answer)."""

    pipe: Any
    loop: asyncio.AbstractEventLoop
    callers: list[tuple[int, int, asyncio.Future[list[Any]]]] = field(default_factory=list)


class SharedPipelines:
    """Non-transactional pipelines on ``client`` (a ``redis.asyncio.Redis``), those started in the same turn
    of the event loop sent as one request (module doc)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._turn: _Turn | None = None
        self._sending: set[asyncio.Task[None]] = set()  # held until done: the loop keeps tasks weakly

    async def run(self, build: Callable[[Any], object]) -> list[Any]:
        """Queue the commands ``build(pipeline)`` adds (single-key commands, as on a pipeline of
        ``transaction=False``) on this turn's pipeline and wait until it has been sent. Returns the
        replies to those commands, in order. Raises what ``Pipeline.execute`` would for them alone: the
        first error among their replies (``redis.exceptions.NoScriptError`` for an unknown script, …),
        or the error of the whole request (a connection error after the client's retries, a timeout),
        which every caller of the turn gets. ``build`` raising queues nothing and raises."""
        loop = asyncio.get_running_loop()
        turn = self._turn
        if turn is None or turn.loop is not loop:  # another loop's turn is sent when that loop runs again
            turn = self._turn = _Turn(self._client.pipeline(transaction=False), loop)
            loop.call_soon(self._close, turn)
        start = len(turn.pipe)
        try:
            build(turn.pipe)
        except BaseException:
            del turn.pipe.command_stack[start:]
            raise
        answer: asyncio.Future[list[Any]] = loop.create_future()
        turn.callers.append((start, len(turn.pipe), answer))
        return await answer

    def _close(self, turn: _Turn) -> None:
        """End of the turn: later callers start a new pipeline; this one is sent."""
        if self._turn is turn:
            self._turn = None
        task = asyncio.ensure_future(self._send(turn))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    @staticmethod
    async def _send(turn: _Turn) -> None:
        """Send ``turn``'s pipeline, give its connection back to the pool, then answer each caller."""
        try:
            async with turn.pipe as pipe:  # reset on exit: the connection is back before anyone is answered
                replies = await pipe.execute(raise_on_error=False) if len(pipe) else []
        except BaseException as exc:  # the request failed as a whole: every caller gets its error
            for _, _, answer in turn.callers:
                if not answer.done():
                    if isinstance(exc, Exception):
                        answer.set_exception(exc)
                    else:  # this task was cancelled (the loop is closing): so are its callers
                        answer.cancel()
            if not isinstance(exc, Exception):
                raise
            return
        for start, end, answer in turn.callers:
            if answer.done():  # its caller was cancelled
                continue
            mine = list(replies[start:end])
            error = next((reply for reply in mine if isinstance(reply, Exception)), None)
            if error is not None:
                answer.set_exception(error)
            else:
                answer.set_result(mine)
