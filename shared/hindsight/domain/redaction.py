"""Redaction of secrets and personal data before anything is queued, stored or embedded.

Rules are named regular expressions; each match is replaced by ``[REDACTED:<name>]``. The defaults
cover credentials (cloud keys, API tokens, JWTs, private keys, and values labelled as a password, secret,
key or token: ``key=value``, ``label: value``, ``label - value``, ``label is value``, ``password for the
vault is now hunter22``, ``password hunter22``), PINs of four to eight digits, and personal data (e-mail
addresses, payment card numbers checked with the Luhn algorithm, phone numbers, IBANs). Deployments
switch rules off by name or add their own (``HINDSIGHT_REDACTION_*``). Every quantifier is bounded, so
that a scan stays linear in the text's length.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hindsight.domain.errors import InvalidInput
from hindsight.domain.regex_literals import Gates, fold, gates_of


def _luhn_ok(digits: str) -> bool:
    """Luhn (mod 10) checksum, ISO/IEC 7812-1: true for real card numbers, rare for random digits."""
    total, parity = 0, len(digits) % 2
    for i, ch in enumerate(digits):
        d = int(ch)
        if i % 2 == parity:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


@dataclass(frozen=True)
class RedactionRule:
    """``pattern`` matches what to hide; ``accept`` may veto a match (e.g. a failed Luhn check)."""

    name: str
    pattern: re.Pattern[str]
    accept: Callable[[re.Match[str]], bool] | None = None
    keep_group: int | None = None
    """Keep this group's text and redact only what follows it (``password: [REDACTED…]``)."""


def _card(match: re.Match[str]) -> bool:
    digits = re.sub(r"\D", "", match.group(0))
    return 13 <= len(digits) <= 19 and _luhn_ok(digits)


_PHRASE_LABEL = r"(?:passphrase|secret)"
"""Labels whose value is often several words ("passphrase: correct horse battery staple")."""
_SECRET_LABEL = r"(?:password|passwd|passcode|pwd|api[_-]?key|access[_-]?token|auth[_-]?token|token)"  # noqa: S105
_PASSWORD_LABEL = r"(?:password|passwd|passcode|pwd|pw)"  # noqa: S105
"""Labels that name a password and nothing else ("pw" too: "pw: hunter22")."""
_VERB = (
    r"(?:(?:\s+(?:is|was|has\s+been|had\s+been|will\s+be)|['\u2019]s)"
    r"(?:\s+(?:now|still|currently|actually|just|always|again))?(?:\s+(?:changed|set|reset|updated)\s+to)?"
    r"|\s+(?:changed|set|reset|updated)\s+to)\s+"
)
"""How a sentence links a label to its value: "is", "'s", "is now", "was changed to", "set to"."""
_OWNER = r"(?:\s+(?:for|to|of|on|at)(?:\s+[^\s,;.!?]{1,30}){1,4}?)?"
"""What a password is for, between the label and its verb ("the password for the vault is …"): at most
four words, so that the rule cannot run on through a paragraph."""
_DIGIT_TOKEN = r"(?!\d{1,3}(?:[.!?]*(?:[\s,;]|$)))(?=[^\s,;]*\d)[^\s,;]{1,200}(?<![.?])"  # noqa: S105
"""A token with a digit, but not a number of one to three digits ("is 12 characters long", "is 2 weeks
old"): in prose a secret is told apart from a description by its digit. A final "." or "?" ends the
sentence, not the secret."""
_SEPARATOR = r"(?:\s*[:=]\s*(?:-{1,2}\s*)?|\s+-{1,2}\s+|\s*[\u2013\u2014]\s*|\s+(?:is|was)\s*:\s*)"
"""Between a label and its value: ":", "=", ": -", " - ", " -- ", a dash, "is:" (not "-" alone, so that
"password-reset" is a word)."""
_IDENTIFIER_SECRET = r"secret(?:[_-]?access)?[_-]?key|secret|(?:access|api|private)[_-]?key|passw(?:or)?d|(?:auth|access|refresh|bearer|session)?[_-]?token"  # noqa: S105, E501
"""How an identifier ends when it names a secret (``AWS_SECRET_ACCESS_KEY``, ``client_secret``,
``db_password``)."""
_QUOTED = r"\"[^\"]{1,200}\"|'[^']{1,200}'"
_CLAUSE = r"(?:[^\n,;]{1,200}?(?=[.!?]*(?:[\n,;]|$)|[.!?]+\s)|[^\n,;]{1,200})"
"""The rest of a clause (to a newline, comma, semicolon or sentence end), else its first 200 characters."""
_PROSE_START = (
    r"(?:the|a|an|my|our|your|his|her|their|its|it|it's|is|was|that|this|to|in|on|at|for|of|we|i|you|they"
    r"|he|she)\b"
)
"""Words a value that is a sentence starts with (a password rarely does)."""
_PLAIN_WORD = r"(?:[A-Za-z][a-z]{0,30}(?:['\u2019-][a-z]{1,30}){0,3}|[A-Z]{2,5}|\d{1,3})"
"""A word of prose: letters, lower case after the first ("Expires", "don't", "read-only"), an acronym
("IT"), or a number of one to three digits ("1 hour")."""
_NOT_A_SECRET = (
    r"(?!(?-i:(?:"
    + _PLAIN_WORD
    + r"[ \t]{1,10}){1,40}"
    + _PLAIN_WORD
    + r"(?=[.!?]*(?:[\n,;]|$)|[.!?]+\s|[ \t]+(?:\(|[-\u2013\u2014][ \t]))"
    r"|\d{1,3}(?=[.!?]*(?:[\s,;]|$))))"
)
"""What a label's value is not, though it follows "label:": a clause of two or more plain words, up to its
end or an aside ("Access token: expires after 1 hour", "… after 1 hour (rotate it)", "… - refresh it",
"Password: see the team vault"), which describes the secret — not "the vault code is blue-42", whose last
word is one — or a number of one to three digits ("token:5", "pw: 2"), which counts or names a slot. A value
with a digit or a symbol in a word, a quoted value, or a single word ("passcode: swordfish") is still taken
as the secret."""

DEFAULT_RULES: tuple[RedactionRule, ...] = (
    # The body (base64 and "Proc-Type:"/"DEK-Info:" headers) has no "--", so a scan stops at the next
    # marker: linear even over many BEGIN lines without an END; 16 KiB holds an 8192-bit RSA key.
    RedactionRule("private_key", re.compile(
        r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----(?:[^-]|-(?!-)){0,16384}"
        r"-----END [A-Z ]{0,40}PRIVATE KEY-----")),
    RedactionRule("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    RedactionRule("api_token", re.compile(
        r"\b(?:sk-(?:proj-)?[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{36,}|xox[abpr]-[A-Za-z0-9-]{10,}"
        r"|glpat-[A-Za-z0-9_-]{20}|AIza[0-9A-Za-z_-]{35}|hsk_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}"
        r"|[sr]k_(?:live|test)_[A-Za-z0-9]{16,})")),  # Stripe secret and restricted keys
    RedactionRule("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    # A labelled value: quoted; for a passphrase or secret, or a value that starts like prose ("secret:
    # the code is blue-42"), the rest of its clause (its first word alone would keep the secret); else
    # one token ("password: letmein99 and he lives in Bergen" keeps the city). Other labels' values that
    # read as prose, or are small numbers, are not secrets (_NOT_A_SECRET).
    RedactionRule("password", re.compile(
        r"(?i)\b(" + _PHRASE_LABEL + _SEPARATOR + r")(?:" + _QUOTED + "|" + _CLAUSE + ")"), keep_group=1),
    RedactionRule("password", re.compile(
        r"(?i)\b(" + _SECRET_LABEL + _SEPARATOR + r")" + _NOT_A_SECRET + r"(?:" + _QUOTED + r"|(?="
        + _PROSE_START + ")" + _CLAUSE + r"|[^\s,;]{1,200})"), keep_group=1),
    # An identifier naming a secret, as in configuration and environment files ("STRIPE_SECRET_KEY=…",
    # "aws_secret_access_key = …", "client_secret: …"): the label ends with the secret's name, so
    # "max_tokens=100" and "token_count: 3" stay as written. Unquoted, only compound names (with "_", "-"
    # or "."): a plain "password:" is the rules' above; quoted (JSON, YAML: '"password": "…"'), any.
    RedactionRule("password", re.compile(
        r"(?i)(?<![\w.-])((?:[\"'][\w.-]*?(?:" + _IDENTIFIER_SECRET + r")[\"']|(?=[\w.-]*[_.-])[\w.-]*?(?:"
        + _IDENTIFIER_SECRET + r"))\s*[:=]\s*)(?!\[REDACTED:)(?:" + _QUOTED + r"|[^\s,;]{1,200})"),
        keep_group=1),
    # A command-line flag naming a secret ("--password hunter2x9", "--api-key=…"); not the next flag.
    RedactionRule("password", re.compile(
        r"(?i)(?<![\w-])(--[\w-]*?(?:" + _IDENTIFIER_SECRET + r")(?:=|\s+))(?![-\[])(?:" + _QUOTED
        + r"|[^\s,;]{1,200})"), keep_group=1),
    # "with secret wJalrXUtnFEMI/K7MDENG…": a label followed directly by a long token with a digit.
    RedactionRule("password", re.compile(
        r"(?i)\b((?:" + _PHRASE_LABEL + "|" + _SECRET_LABEL + r"|key)\s+)(?=[^\s,;]*\d)(?=[^\s,;]*[a-z])"
        r"[^\s,;]{16,200}"), keep_group=1),
    # "my password is hunter2", "is now hunter23", "the password for the vault is hunter22": after the
    # verb only a quoted value or a token with a digit, so that "the password is too short", "the password
    # for the vault is on the sticky note" and "the secret was Anna's birthday" stay as written.
    RedactionRule("password", re.compile(
        r"(?i)\b((?:" + _PASSWORD_LABEL + _OWNER + "|" + _PHRASE_LABEL + "|" + _SECRET_LABEL + ")" + _VERB
        + r")(?:" + _QUOTED + "|" + _DIGIT_TOKEN + ")"), keep_group=1),
    # "Log in with password hunter22", "pw hunter22", "is the password hunter2?": a password label followed
    # directly by a token of six or more characters with a letter and a digit, or of six or more digits
    # ("pw 2", "password 2FA", "password 2023-11-02" stay).
    RedactionRule("password", re.compile(
        r"(?i)\b(" + _PASSWORD_LABEL + r"\s+)(?!\[REDACTED:)(?:(?=[^\s,;]*\d)(?=[^\s,;]*[a-z])[^\s,;]{6,200}"
        r"(?<![.?])|\d{6,64}(?![^\s,;]))"), keep_group=1),
    # "pw: hunter22": the short label takes one token after ":" or "=", as "password:" does.
    RedactionRule("password", re.compile(
        r"(?i)\b(pw\s*[:=]\s*)(?!\[REDACTED:)" + _NOT_A_SECRET + r"(?:" + _QUOTED + r"|[^\s,;]{1,200})"),
        keep_group=1),
    # A PIN is four to eight digits: "My PIN is 4921", "pin: 4921", "PIN code 4921" (upper case only when no
    # verb or ":" links them), so that "pin the tab", "pin 13 of the board" and "my PIN is four digits" stay.
    RedactionRule("pin", re.compile(
        r"\b((?i:pin(?:\s+(?:code|number))?" + _OWNER + r"(?:\s*[:=]\s*|" + _VERB + r"))"
        r"|PIN(?:\s+(?:code|number))?\s+)\d{4,8}(?!\w|[.,-]\d)"), keep_group=1),
    # Credentials in a URL ("postgres://app:s3cret@db.internal:5432/x", RFC 3986 userinfo): the password
    # only; the scheme, user and host stay readable (before the e-mail rule, which would take
    # "s3cret@db.internal" whole).
    RedactionRule("password", re.compile(
        r"(?i)\b([a-z][a-z0-9+.-]{0,30}://[^\s:/?#@\[\]]{0,200}:)(?!\[REDACTED:)[^\s/?#@]{1,200}(?=@)"),
        keep_group=1),
    # Lengths bounded as in RFC 5321 (local part 64, domain 255): unbounded, "a.a.a.…" took quadratic time.
    RedactionRule("email", re.compile(r"\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,255}\.[A-Za-z]{2,63}\b")),
    RedactionRule("card_number", re.compile(r"\b(?:\d[ -]?){12,18}\d\b"), accept=_card),
    RedactionRule("iban", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b")),
    RedactionRule("phone", re.compile(
        r"(?<![\w-])\+\d{1,3}[ .-]?\(?\d{1,4}\)?(?:[ .-]?\d{2,4}){2,4}(?![\w-])")),
    # A North American number (NANP, ITU-T E.164 +1) written in its local forms: "(415) 555-0199",
    # "415-555-0199", "415.555.0199", "415 555-0199", "1-415-555-0199", with an extension "x12": area code,
    # exchange (both starting with 2-9) and line, each separated, so dates (2023-11-02) and versions
    # (1.2.3) do not match, nor a run inside a longer token.
    RedactionRule("phone", re.compile(
        r"(?<![\w(.+-])(?:1[ .-])?(?:\([2-9]\d{2}\)[ .-]?|[2-9]\d{2}[ .-])[2-9]\d{2}[ .-]\d{4}"
        r"(?:[ \t]?(?:x|ext\.?)[ \t]?\d{1,5})?(?![\w-]|\.\d)")),
    # Ten digits written together after a word naming a phone ("phone: 4155550199", "tel +14155550199").
    RedactionRule("phone", re.compile(
        r"(?i)\b((?:phone|tel|telephone|mobile|cell|fax)(?:\s+(?:number|no\.?|#))?\s*[:=.-]?\s*)"
        r"(?:\+?1[ .-]?)?[2-9]\d{9}(?!\w)"), keep_group=1),
)  # fmt: skip


class Redactor:
    """Applies the enabled rules, in order, to text and to every string inside JSON-like values."""

    def __init__(self, rules: Iterable[RedactionRule] = DEFAULT_RULES, disabled: Iterable[str] = ()) -> None:
        off = set(disabled)
        self.rules = tuple(r for r in rules if r.name not in off)
        self._by_key = "password" not in off
        """A string under a key naming a secret (``{"password": "…"}``) is hidden whole, as the
        ``password`` rules hide a labelled value in text."""
        self._gates: Gates | None = None
        """The rules' literal conditions (``text``), built on first use."""

    def text(self, value: str, found: set[str] | None = None) -> str:
        """``value`` with every accepted match replaced; the names of the rules that replaced something
        are added to ``found`` when given.

        A rule is run only on a text that holds the literals one of its matches needs
        (``regex_literals``: "@", "akia", "password" …; read off each rule's pattern on first use): most
        texts hold none of most rules' literals, and each rule's scan cost a few µs to ~20 µs of every
        string of a write's acknowledgement (issue 15)."""
        if self._gates is None:
            self._gates = gates_of([rule.pattern for rule in self.rules])
        gates = self._gates
        present = gates.present(fold(value))
        for index, rule in enumerate(self.rules):
            if not gates.holds_in(index, present):
                continue  # it cannot match here
            redacted = rule.pattern.sub(lambda m, r=rule: _replacement(r, m, found), value)  # type: ignore[misc]
            if redacted != value:  # a later rule sees the replaced text, as it always did
                value, present = redacted, gates.present(fold(redacted))
        return value

    def value(self, value: Any, found: set[str] | None = None) -> Any:
        """Strings, lists and dicts (keys kept) with redacted strings; other scalars unchanged. ``found``
        as for ``text``."""
        if isinstance(value, str):
            return self.text(value, found)
        if isinstance(value, list):
            return [self.value(v, found) for v in value]
        if isinstance(value, Mapping):
            return {k: self._item(k, v, found) for k, v in value.items()}
        return value

    def _item(self, key: Any, value: Any, found: set[str] | None) -> Any:
        if self._by_key and isinstance(value, str) and value.strip() and _SECRET_KEY.fullmatch(str(key)):
            kind = self._whole_kind(value.strip())
            if found is not None:
                found.add(kind)
            return f"[REDACTED:{kind}]"
        return self.value(value, found)

    def _whole_kind(self, value: str) -> str:
        """The name of the first rule that matches all of ``value`` (``{"api_key": "sk_live_…"}`` is an
        ``api_token``), else ``password``; a rule that keeps a label (``keep_group``) names no bare value."""
        for rule in self.rules:
            match = rule.pattern.fullmatch(value) if rule.keep_group is None else None
            if match is not None and (rule.accept is None or rule.accept(match)):
                return rule.name
        return "password"


_SECRET_KEY = re.compile(r"(?i)[\w.-]*?(?:" + _IDENTIFIER_SECRET + ")")
"""A JSON key naming a secret: ``password``, ``aws_secret_access_key``, ``authToken`` (not ``key``,
``tokens``)."""


def _replacement(rule: RedactionRule, match: re.Match[str], found: set[str] | None) -> str:
    if rule.accept is not None and not rule.accept(match):
        return match.group(0)
    if found is not None:
        found.add(rule.name)
    prefix = match.group(rule.keep_group) if rule.keep_group is not None else ""
    return f"{prefix}[REDACTED:{rule.name}]"


def custom_rules(patterns: Mapping[str, str]) -> tuple[RedactionRule, ...]:
    """Rules from ``{"name": "regex"}`` (configuration). Raises re.error for an invalid pattern."""
    return tuple(RedactionRule(name, re.compile(pattern)) for name, pattern in patterns.items())


def redact_model(redactor: Redactor, model: Any, fields: Iterable[str], found: set[str] | None = None) -> Any:
    """A re-validated copy of a pydantic model with ``fields`` redacted (validation limits still apply,
    so text that grows past a limit by redaction is refused like any other over-long input). The names
    of the rules that redacted something are added to ``found`` when given."""
    data = model.model_dump()
    for name in fields:
        if data.get(name) is not None:
            data[name] = redactor.value(data[name], found)
    return type(model).model_validate(data)


DRAFT_TEXT_FIELDS = (
    "content",
    "context",
    "key",
    "query",
    "metadata",
    "entities",
    "summary",
    "key_decisions",
    "lessons",
    "task_id",
)
"""MemoryDraft fields that can carry free text (tags are restricted to [\\w.:/-] and left alone)."""


def key_redaction_kinds(redactor: Redactor, key: str | None) -> list[str]:
    """The kinds (rule names, sorted) of what redaction would replace in ``key``; empty when it would
    leave the key as written (also for None)."""
    if key is None:
        return []
    found: set[str] = set()
    return sorted(found) if redactor.text(key, found) != key else []


def identifier_refusal(
    redactor: Redactor, value: str | None, what: str = "key", example: str = "contact.alice"
) -> str | None:
    """Why ``value``, an identifier (``what``: "key", "session id"), is refused, or None when redaction
    would leave it as written. An identifier is never rewritten: two keys redacted to the same
    ``[REDACTED:email]`` would become one (a write on one would supersede the other's fact, a
    working-memory item overwrite the other's). The reason names the kinds found, never the text that
    matched, and ``example`` as what to choose instead."""
    kinds = key_redaction_kinds(redactor, value)
    if not kinds:
        return None
    return (
        f"this {what} contains what redaction hides ({', '.join(kinds)}); a {what} is an identifier, and "
        f"redacting it would merge it with every other {what} redacted alike, so it is refused: choose a "
        f"{what} without personal data or secrets, e.g. '{example}'"
    )


def ensure_key_unredacted(
    redactor: Redactor, key: str | None, field: str, what: str = "key", example: str = "contact.alice"
) -> None:
    """Refuse a key (or another identifier: ``what``) that redaction would change
    (``identifier_refusal``).

    Raises:
        InvalidInput: on ``field``, naming the kinds found (never the text that matched).
    """
    message = identifier_refusal(redactor, key, what, example)
    if message is not None:
        raise InvalidInput(field, message)
