#!/usr/bin/env bash
# LocalStack "ready" hook (mounted into /etc/localstack/init/ready.d/ by docker-compose.localstack.yml):
# creates what Hindsight expects in AWS, idempotently, so a restart never fails on "already exists".
#
#   - SQS: the write queue and its dead-letter queue, with the same names and redrive policy as the
#     embedded stack's emulator (shared/hindsight/local/sqs_emulator.py);
#   - Secrets Manager: hindsight/database, an RDS-style JSON secret (host, port, username, password,
#     dbname) pointing at the compose postgres service - what HINDSIGHT_DATABASE_SECRET_ARN names in AWS.
#
# Outside the container: AWSLOCAL="aws --endpoint-url http://127.0.0.1:4566" infra/localstack/init-aws.sh
set -euo pipefail

AWSLOCAL=${AWSLOCAL:-awslocal}

# Keep in step with shared/hindsight/local/sqs_emulator.py.
WRITE_QUEUE=hindsight-writes
WRITE_DLQ=hindsight-writes-dlq
MAX_RECEIVE_COUNT=5
VISIBILITY_TIMEOUT_S=30
DLQ_RETENTION_S=1209600  # 14 days

SECRET_NAME=hindsight/database
DB_HOST=${POSTGRES_HOST:-postgres}
DB_PORT=${POSTGRES_PORT_IN_NETWORK:-5432}
DB_NAME=${POSTGRES_DB:-hindsight}
DB_USER=${POSTGRES_USER:-hindsight}
DB_PASSWORD=${POSTGRES_PASSWORD:-hindsight-local}

aws_() { $AWSLOCAL "$@"; }

# JSON is built by Python (part of the LocalStack image) so that any password is escaped correctly.
py_json() { python3 -c "import json, sys; a = sys.argv[1:]; print(json.dumps($1))" "${@:2}"; }

dlq_url=$(aws_ sqs create-queue --queue-name "$WRITE_DLQ" \
  --attributes "MessageRetentionPeriod=$DLQ_RETENTION_S" --query QueueUrl --output text)
dlq_arn=$(aws_ sqs get-queue-attributes --queue-url "$dlq_url" --attribute-names QueueArn \
  --query Attributes.QueueArn --output text)

redrive=$(py_json '{"deadLetterTargetArn": a[0], "maxReceiveCount": int(a[1])}' "$dlq_arn" "$MAX_RECEIVE_COUNT")
queue_attributes=$(py_json '{"VisibilityTimeout": a[0], "RedrivePolicy": a[1]}' "$VISIBILITY_TIMEOUT_S" "$redrive")
queue_url=$(aws_ sqs create-queue --queue-name "$WRITE_QUEUE" --attributes "$queue_attributes" \
  --query QueueUrl --output text)
# create-queue keeps the attributes of a queue that already exists: set them explicitly.
aws_ sqs set-queue-attributes --queue-url "$queue_url" --attributes "$queue_attributes"

secret=$(py_json '{"engine": "postgres", "host": a[0], "port": int(a[1]), "username": a[2], "password": a[3], "dbname": a[4]}' \
  "$DB_HOST" "$DB_PORT" "$DB_USER" "$DB_PASSWORD" "$DB_NAME")
if secret_arn=$(aws_ secretsmanager describe-secret --secret-id "$SECRET_NAME" --query ARN --output text 2>/dev/null); then
  aws_ secretsmanager put-secret-value --secret-id "$SECRET_NAME" --secret-string "$secret" >/dev/null
else
  secret_arn=$(aws_ secretsmanager create-secret --name "$SECRET_NAME" \
    --description "Hindsight database (compose postgres)" --secret-string "$secret" --query ARN --output text)
fi

echo "hindsight: write queue      $queue_url"
echo "hindsight: dead-letter queue $dlq_url (maxReceiveCount $MAX_RECEIVE_COUNT)"
echo "hindsight: database secret  $secret_arn"
