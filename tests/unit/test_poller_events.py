"""The local poller builds the same SQS event Lambda's event source mapping delivers."""

from __future__ import annotations

from hindsight.local.poller import to_lambda_event
from tests.support import load_event


def test_event_matches_the_canonical_sqs_event_shape() -> None:
    received = [
        {
            "MessageId": "m1",
            "ReceiptHandle": "r1",
            "Body": "{}",
            "MD5OfBody": "x",
            "Attributes": {"ApproximateReceiveCount": "1"},
            "MessageAttributes": {"kind": {"StringValue": "memory.write", "DataType": "String"}},
        }
    ]
    event = to_lambda_event(received, "arn:aws:sqs:us-east-1:123456789012:hindsight-writes", "us-east-1")
    canonical = load_event("sqs_write_batch.json")["Records"][0]
    (record,) = event["Records"]
    assert set(record) == set(canonical)
    assert record["messageAttributes"]["kind"]["stringValue"] == "memory.write"
    assert record["eventSource"] == "aws:sqs"
