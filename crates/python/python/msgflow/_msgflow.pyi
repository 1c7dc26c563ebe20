"""Type stubs for the native module `msgflow._msgflow` (crates/python/src/lib.rs).

Private: use the `msgflow` package. Every function takes pydantic-ai JSON bytes and returns JSON
reports as `str`, with the GIL released while it works; the `arrow_*` functions take an Arrow column
of them (`msgflow.arrow`) and return an `ArrowColumn`.
"""

class InvalidHistory(ValueError):
    """The input is not a pydantic-ai message history."""

    path: str
    """The JSON path where reading stopped (`$[1].parts`)."""
    line: int
    """1-based line of the input."""
    column: int
    """Column on that line."""
    detail: str
    """What was expected there."""

class ExportRefused(ValueError):
    """The provider's request cannot be built as pydantic-ai would build it, or the provider would reject
    what msgflow cannot repair."""

    message_index: int | None
    part_index: int | None
    path: str | None
    reason: str
    """Why, quoting pydantic-ai's error (or the provider's) where there is one."""

class DoesNotFit(ValueError):
    """Even the newest turn alone exceeds the budget."""

    needed: int
    limit: int
    unit: str

class ConversionError(ValueError):
    """The input is not the format it was named as, the target cannot take the history, or `strict`
    refused a loss."""

    document: int
    """The input document (0 unless the input is JSON Lines)."""
    path: str
    """The JSON path of the value (in the input; in the history for what the target cannot take)."""
    line: int | None
    """1-based line of the input, when known."""
    column: int | None
    """Column on that line, when known."""
    detail: str
    """What was expected, or why the conversion is impossible."""

def check(
    data: bytes,
    provider: str | None = None,
    openai_chat_thinking: str | None = None,
    anthropic_thinking: str | None = None,
    openai_thinking: str | None = None,
) -> tuple[bool, str | None]:
    """The verdict (pydantic-ai loads it), and `check --json`'s document when it holds a problem."""
def _check_seconds_per_call(data: bytes, calls: int) -> float:
    """Benchmark hook: the seconds one call of the Rust check takes in this process, `calls` in a row."""
def repair(
    data: bytes,
    provider: str | None = None,
    message: str | None = None,
    keep_last_response: bool = False,
    resolve_remaining: bool = False,
) -> tuple[bytes, str]: ...
def default_repair_message() -> str: ...
def trim(
    data: bytes,
    max_tokens: int | None = None,
    keep_turns: int | None = None,
    max_bytes: int | None = None,
    tokenizer: str = "o200k_base",
    clear_tool_results_older_than: int | None = None,
    clamp_parts: int | None = None,
    harness_clear: int | None = None,
    harness_clamp: int | None = None,
) -> tuple[bytes, str]: ...
def count_tokens(data: bytes, tokenizer: str = "o200k_base") -> str: ...
def export(
    data: bytes,
    to: str,
    openai_chat_thinking: str | None = None,
    anthropic_thinking: str | None = None,
    openai_thinking: str | None = None,
) -> tuple[str, str | None]: ...
def fmt(data: bytes) -> bytes: ...
def assemble(
    events: str,
    history: bytes | None,
    timestamp: str,
    model_name: str | None = None,
    provider_name: str | None = None,
) -> tuple[bytes, str]: ...

class HistoryCache:
    """A growing history's messages parsed and counted once (`msgflow.pydantic_ai.HistoryCache` wraps it)."""

    def __init__(self, tokenizer: str = "o200k_base") -> None: ...
    @property
    def tokenizer(self) -> str: ...
    def __len__(self) -> int: ...
    def stale_from(self, messages: list[object]) -> int:
        """The first message that is not the cached object or whose fingerprint changed."""
    def update(self, messages: list[object], start: int, data: bytes) -> None:
        """Caches `messages`; `data` is the JSON of `messages[start:]`."""
    def fit(
        self,
        max_tokens: int,
        clear_tool_results_older_than: int | None = None,
        clamp_parts: int | None = None,
    ) -> tuple[int, list[int], bytes, str]:
        """`trim(max_tokens=...)` of the cached history: the first message kept, the output indices of the
        messages that are not the input's, those messages as JSON, and the figures as JSON."""
def convert(
    data: bytes,
    from_: str,
    to: str,
    lossless: bool = False,
    strict: bool = False,
    vercel_sdk: int = 5,
    otel_version: int = 5,
) -> tuple[list[bytes], str]: ...
class ArrowColumn:
    """A result column (`msgflow.arrow`), exported through the Arrow PyCapsule interface."""

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]: ...
    def __len__(self) -> int: ...

def arrow_check(column: object, provider: str | None = None, raise_errors: bool = False) -> ArrowColumn: ...
def arrow_repair(
    column: object,
    provider: str | None = None,
    message: str | None = None,
    keep_last_response: bool = False,
    raise_errors: bool = False,
) -> ArrowColumn: ...
def arrow_trim(
    column: object,
    max_tokens: int | None = None,
    keep_turns: int | None = None,
    max_bytes: int | None = None,
    tokenizer: str = "o200k_base",
    clear_tool_results_older_than: int | None = None,
    clamp_parts: int | None = None,
    raise_errors: bool = False,
) -> ArrowColumn: ...
def arrow_count_tokens(column: object, tokenizer: str = "o200k_base", raise_errors: bool = False) -> ArrowColumn: ...
def arrow_export(column: object, to: str, raise_errors: bool = False) -> ArrowColumn: ...
