"""Store memories (the embedding worker): embed a whole batch in one model call, then store, merge or
supersede each job. Long content is split into chunks that share the memory's id. Possible conflicts the
contradiction rules were unsure of are then put to the conflict judge, when one is configured."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from hindsight.domain.chunking import chunk_text
from hindsight.domain.errors import JudgeFailed
from hindsight.domain.limits import MAX_SHORT_TEXT_CHARS
from hindsight.domain.memory import OpenConflict, PreparedWrite, StoreResult, WriteJob
from hindsight.domain.relative_time import with_inferred_time
from hindsight.domain.text import is_short_reply, passage_text
from hindsight.ports import ConflictJudge, Embedder, MemoryWriter, Metrics, Vector
from hindsight.usecases.reflect import ShouldRemember

log = logging.getLogger(__name__)

OUTCOME_METRICS = {
    "stored": "MemoriesStored",
    "merged": "DedupMerges",
    "skipped": "WritesSkipped",
    "failed": "WritesFailed",
}


class StoreMemories:
    """Turns queued write jobs into stored (or merged) memories; idempotent per job id.

    ``prepare`` (the model call) and ``commit`` (the transactions) are separate so the worker can put
    its idempotency records around the commit of the batch (``api.sqs_worker``).
    """

    def __init__(
        self,
        writer: MemoryWriter,
        embedder: Embedder,
        dedup_cosine: float,
        should_remember: ShouldRemember | None = None,
        metrics: Metrics | None = None,
        conflict_judge: ConflictJudge | None = None,
    ) -> None:
        self._metrics = metrics
        self._conflict_judge = conflict_judge
        self._should_remember = should_remember or ShouldRemember()
        self._writer = writer
        self._embedder = embedder
        self._dedup_cosine = dedup_cosine

    async def _with_answered_turns(self, jobs: Sequence[WriteJob]) -> list[WriteJob]:
        """Short replies of a conversation written without ``context`` get the turn before them (the one
        they answer) as context: from the same batch, else from the store. Best effort: a turn whose
        predecessor is not stored yet (the queue does not keep order) is indexed alone."""
        wanted: dict[int, tuple[str, int, int]] = {}
        for index, job in enumerate(jobs):
            d = job.draft
            if d.context is None and d.conversation_id and d.turn_index and is_short_reply(d.content):
                wanted[index] = (d.conversation_id, d.session_index or 0, d.turn_index - 1)
        if not wanted:
            return list(jobs)
        known: dict[tuple[str, str, tuple[str, int, int]], str] = {}
        for job in jobs:
            position = job.draft.conversation_id, job.draft.session_index or 0, job.draft.turn_index
            if position[0] and position[2] is not None:
                known[(job.tenant_id, job.agent_id, position)] = job.draft.content  # type: ignore[index]
        missing: dict[tuple[str, str], list[tuple[str, int, int]]] = {}
        for index, position in wanted.items():
            job = jobs[index]
            if (job.tenant_id, job.agent_id, position) not in known:
                missing.setdefault((job.tenant_id, job.agent_id), []).append(position)
        for (tenant, agent), positions in missing.items():
            for position, content in (await self._writer.turn_contents(tenant, agent, positions)).items():
                known[(tenant, agent, position)] = content
        out = list(jobs)
        for index, position in wanted.items():
            job = jobs[index]
            previous = known.get((job.tenant_id, job.agent_id, position))
            if previous:
                draft = job.draft.model_copy(update={"context": previous[:MAX_SHORT_TEXT_CHARS]})
                out[index] = job.model_copy(update={"draft": draft})
        return out

    async def prepare(self, jobs: Sequence[WriteJob]) -> list[PreparedWrite]:
        """Embed every chunk of every job in one call (jobs the write filter skips are not embedded).
        A job without occurred_at whose content says when ("yesterday", 上周二) gets it, measured from its
        acknowledgement (``domain.relative_time``).
        Short conversation replies are embedded with the turn they answer (``_with_answered_turns``).
        An exact repeat of a stored write's texts takes that memory's vectors (``_known_vectors``).
        Raises whatever the embedder or the store raises."""
        jobs = [j.model_copy(update={"draft": with_inferred_time(j.draft, j.submitted_at)}) for j in jobs]
        jobs = await self._with_answered_turns(jobs)
        skips: dict[int, str] = {}
        for index, job in enumerate(jobs):
            if job.filter:
                verdict = await self._should_remember(job.draft.content)
                if not verdict.remember:
                    triggers = ", ".join(verdict.rules.triggers) or "none"
                    skips[index] = f"not worth remembering ({verdict.decided_by}; triggers: {triggers})"
        pieces: list[list[str]] = []
        window = self._embedder.passage_window()  # every chunk within the model's window
        for index, job in enumerate(jobs):
            if index in skips:
                pieces.append([])
                continue
            chunks = chunk_text(job.draft.content, window=window)
            # context and recall hint go with the first chunk
            chunks[0] = passage_text(job.draft.model_copy(update={"content": chunks[0]}))
            pieces.append(chunks)
        known = await self._known_vectors(jobs, pieces)
        flat = [text for index, chunks in enumerate(pieces) if index not in known for text in chunks]
        vectors = await self._embedder.embed_passages(flat) if flat else []
        prepared, at = [], 0
        for index, (job, chunks) in enumerate(zip(jobs, pieces, strict=True)):
            if index in skips:
                prepared.append(PreparedWrite(job=job, embedding=[], skip=skips[index]))
                continue
            if index in known:
                prepared.append(PreparedWrite(job=job, embedding=known[index][0], chunks=known[index][1]))
                continue
            vecs = vectors[at : at + len(chunks)]
            at += len(chunks)
            prepared.append(
                PreparedWrite(job=job, embedding=vecs[0], chunks=list(zip(chunks[1:], vecs[1:], strict=True)))
            )
        return prepared

    async def _known_vectors(
        self, jobs: Sequence[WriteJob], pieces: Sequence[list[str]]
    ) -> dict[int, tuple[Vector, list[tuple[str, Vector]]]]:
        """Jobs (by index) whose exact texts the write path has embedded already (an identical repeat):
        that memory's vectors, when its chunks are the texts this job's content is cut into now, so the
        store decides on exactly the vectors the model would give (new-user trial F2: a repeat of a
        32,000-emoji write spent ~10 minutes in the model only to end ``merged``)."""
        wanted = [i for i, chunks in enumerate(pieces) if chunks]
        if not wanted:
            return {}
        found = await self._writer.stored_vectors([jobs[i] for i in wanted])
        known: dict[int, tuple[Vector, list[tuple[str, Vector]]]] = {}
        for index in wanted:
            stored = found.get(jobs[index].id)
            if stored is not None and [text for text, _ in stored.chunks] == pieces[index][1:]:
                known[index] = (stored.embedding, stored.chunks)
        return known

    async def commit(self, prepared: Sequence[PreparedWrite]) -> list[StoreResult]:
        """Store prepared jobs; one result per job, in order (failed ones are not recorded). Open
        conflicts are then settled by the judge, one transaction each, outside the write transaction."""
        results = await self._writer.store(prepared, self._dedup_cosine)
        for result in results:
            for conflict in result.open_conflicts:
                await self._settle(prepared, conflict)
        if self._metrics is not None:
            for result in results:
                self._metrics.count(OUTCOME_METRICS[result.outcome])
                if result.reason and result.reason.startswith("supersedes"):
                    self._metrics.count("Supersedes")
        return results

    async def _settle(self, prepared: Sequence[PreparedWrite], conflict: OpenConflict) -> None:
        """Ask the judge about one possible conflict and apply its answer; without a judge, or when it
        fails, both memories stay active, linked ``contradicts``, and recall flags them."""
        if self._metrics is not None:
            self._metrics.count("PossibleConflicts")
        if self._conflict_judge is None:
            return
        try:
            relation = await self._conflict_judge.judge(conflict.new_content, conflict.old_content)
        except JudgeFailed as exc:
            log.warning("conflict judge failed; both memories stay, flagged: %s", exc)
            return
        job = next(p.job for p in prepared if p.job.id == conflict.new_id)
        done = await self._writer.settle_conflict(
            job.tenant_id, job.agent_id, conflict, contradiction=relation == "contradiction"
        )
        log.info("possible conflict %s → %s judged %s: %s", conflict.new_id, conflict.old_id, relation, done)

    async def __call__(self, jobs: Sequence[WriteJob]) -> list[StoreResult]:
        """prepare + commit: one result per job, in order."""
        if not jobs:
            return []
        return await self.commit(await self.prepare(jobs))
