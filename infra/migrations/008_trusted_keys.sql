-- Trusted API keys (domain.trust): writes through a key that is not trusted may claim at most importance 0.5
-- when their source is agent_inferred or their text reads like a prompt injection; an operator's key,
-- minted with `hindsight token create --trusted`, may set any. Existing keys are not trusted.
ALTER TABLE api_keys ADD COLUMN trusted boolean NOT NULL DEFAULT false;
