"""The database secret read alone, in a fresh interpreter on a Lambda layer: import what the MCP function has
imported by the time it reads its secret (``hindsight.api.entrypoints``' MCP builder, the server, the Lambda
adapter, the composition root), then time ``hindsight.bootstrap.database_url`` on the environment's
settings. Prints ``{"ms", "cpu_ms", "sdk"}`` as JSON on the last line (``sdk``: whether botocore's session
module, the AWS SDK proper, was imported). Run by bench/ab_secret_read.py.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> None:
    import hindsight.api.entrypoints
    import hindsight.api.lambda_http
    import hindsight.api.mcp_server
    import hindsight.bootstrap
    from hindsight.config import Settings

    del hindsight  # imported for their cost only: what the function holds when it reads the secret
    settings = Settings.load()
    from hindsight.bootstrap import database_url

    started, cpu_started = time.perf_counter(), time.process_time()
    database_url(settings)
    elapsed, cpu = (time.perf_counter() - started) * 1000, (time.process_time() - cpu_started) * 1000
    print(
        json.dumps(
            {"ms": round(elapsed, 1), "cpu_ms": round(cpu, 1), "sdk": "botocore.session" in sys.modules}
        )
    )


if __name__ == "__main__":
    main()
