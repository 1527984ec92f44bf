#!/usr/bin/env bash
# LocalStack "ready" hook (mounted into /etc/localstack/init/ready.d/ by docker-compose.localstack.yml):
# creates what Hindsight expects in AWS, idempotently, so a restart never fails on "already exists".
#
#   - SQS: the write, bulk-write and reflection queues, each with its dead-letter queue and redrive policy, with the
#     names and maxReceiveCount of the embedded stack's emulator (shared/hindsight/local/sqs_emulator.py)
#     and the visibility timeout of template.yaml (6x the workers' 120 s Timeout);
#   - EventBridge: the rule hindsight-maintenance on MAINTENANCE_RATE (the template's Schedule event is
#     such a rule too); infra/localstack/deploy.py adds the maintenance function as its target;
#   - Secrets Manager: hindsight/database, an RDS-style JSON secret (host, port, username, password,
#     dbname) pointing at the compose postgres service - what HINDSIGHT_DATABASE_SECRET_ARN names in AWS.
#
# Outside the container: AWSLOCAL="aws --endpoint-url http://127.0.0.1:4566" infra/localstack/init-aws.sh
# (tests/deploy runs it that way against moto's SQS, EventBridge and Secrets Manager).
set -euo pipefail
shopt -s inherit_errexit  # a failing command inside $(...) stops the hook too, instead of an empty value

AWSLOCAL=${AWSLOCAL:-awslocal}
PYTHON=${PYTHON:-python3}

# Keep in step with shared/hindsight/local/sqs_emulator.py (names, maxReceiveCount) and template.yaml.
WRITE_QUEUE=hindsight-writes
WRITE_DLQ=hindsight-writes-dlq
BULK_QUEUE=hindsight-bulk-writes
BULK_DLQ=hindsight-bulk-writes-dlq
REFLECT_QUEUE=hindsight-reflections
REFLECT_DLQ=hindsight-reflections-dlq
MAX_RECEIVE_COUNT=5
VISIBILITY_TIMEOUT_S=720
DLQ_RETENTION_S=1209600  # 14 days

MAINTENANCE_RULE=hindsight-maintenance
MAINTENANCE_RATE=${MAINTENANCE_RATE:-rate(15 minutes)}

SECRET_NAME=hindsight/database
DB_HOST=${POSTGRES_HOST:-postgres}
DB_PORT=${POSTGRES_PORT_IN_NETWORK:-5432}
DB_NAME=${POSTGRES_DB:-hindsight}
DB_USER=${POSTGRES_USER:-hindsight}
DB_PASSWORD=${POSTGRES_PASSWORD:-hindsight-local}

aws_() { $AWSLOCAL "$@"; }

# JSON is built by Python (part of the LocalStack image) so that any password is escaped correctly.
py_json() { "$PYTHON" -c "import json, sys; a = sys.argv[1:]; print(json.dumps($1))" "${@:2}"; }

# ensure_queue NAME ATTRIBUTES_JSON -> prints the queue URL. SQS (and LocalStack) refuse create-queue for
# a queue that exists with other attributes, so an existing queue gets set-queue-attributes instead.
ensure_queue() {
  local name=$1 attributes=$2 url
  if url=$(aws_ sqs get-queue-url --queue-name "$name" --query QueueUrl --output text 2>/dev/null); then
    aws_ sqs set-queue-attributes --queue-url "$url" --attributes "$attributes"
  else
    url=$(aws_ sqs create-queue --queue-name "$name" --attributes "$attributes" --query QueueUrl --output text)
  fi
  printf '%s\n' "$url"
}

# queue_with_dlq NAME DLQ_NAME -> prints the queue URL, then the DLQ URL (one per line)
queue_with_dlq() {
  local name=$1 dlq_name=$2 dlq_url dlq_arn redrive attributes url
  dlq_url=$(ensure_queue "$dlq_name" "$(py_json '{"MessageRetentionPeriod": a[0]}' "$DLQ_RETENTION_S")")
  dlq_arn=$(aws_ sqs get-queue-attributes --queue-url "$dlq_url" --attribute-names QueueArn \
    --query Attributes.QueueArn --output text)
  redrive=$(py_json '{"deadLetterTargetArn": a[0], "maxReceiveCount": int(a[1])}' "$dlq_arn" "$MAX_RECEIVE_COUNT")
  attributes=$(py_json '{"VisibilityTimeout": a[0], "RedrivePolicy": a[1]}' "$VISIBILITY_TIMEOUT_S" "$redrive")
  url=$(ensure_queue "$name" "$attributes")
  printf '%s\n%s\n' "$url" "$dlq_url"
}

# (Command substitution, not `read < <(...)`: under `set -e` a failure inside must stop the hook.)
urls=$(queue_with_dlq "$WRITE_QUEUE" "$WRITE_DLQ")
write_url=${urls%%$'\n'*} write_dlq_url=${urls#*$'\n'}
urls=$(queue_with_dlq "$BULK_QUEUE" "$BULK_DLQ")
bulk_url=${urls%%$'\n'*} bulk_dlq_url=${urls#*$'\n'}
urls=$(queue_with_dlq "$REFLECT_QUEUE" "$REFLECT_DLQ")
reflect_url=${urls%%$'\n'*} reflect_dlq_url=${urls#*$'\n'}

# put-rule creates or updates: the schedule follows MAINTENANCE_RATE on every start.
rule_arn=$(aws_ events put-rule --name "$MAINTENANCE_RULE" --schedule-expression "$MAINTENANCE_RATE" \
  --state ENABLED --description "Hindsight scheduled maintenance" --query RuleArn --output text)

secret=$(py_json '{"engine": "postgres", "host": a[0], "port": int(a[1]), "username": a[2], "password": a[3], "dbname": a[4]}' \
  "$DB_HOST" "$DB_PORT" "$DB_USER" "$DB_PASSWORD" "$DB_NAME")
if secret_arn=$(aws_ secretsmanager describe-secret --secret-id "$SECRET_NAME" --query ARN --output text 2>/dev/null); then
  aws_ secretsmanager put-secret-value --secret-id "$SECRET_NAME" --secret-string "$secret" >/dev/null
else
  secret_arn=$(aws_ secretsmanager create-secret --name "$SECRET_NAME" \
    --description "Hindsight database (compose postgres)" --secret-string "$secret" --query ARN --output text)
fi

echo "hindsight: write queue              $write_url"
echo "hindsight: write dead-letter queue  $write_dlq_url (maxReceiveCount $MAX_RECEIVE_COUNT)"
echo "hindsight: bulk write queue         $bulk_url"
echo "hindsight: bulk dead-letter queue   $bulk_dlq_url (maxReceiveCount $MAX_RECEIVE_COUNT)"
echo "hindsight: reflection queue         $reflect_url"
echo "hindsight: reflection dead-letter   $reflect_dlq_url (maxReceiveCount $MAX_RECEIVE_COUNT)"
echo "hindsight: maintenance schedule     $rule_arn ($MAINTENANCE_RATE)"
echo "hindsight: database secret          $secret_arn"
