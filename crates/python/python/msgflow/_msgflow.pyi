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

def check(data: bytes, provider: str | None = None) -> str: ...
def repair(
    data: bytes, provider: str | None = None, message: str | None = None, keep_last_response: bool = False
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
) -> tuple[bytes, str]: ...
def count_tokens(data: bytes, tokenizer: str = "o200k_base") -> str: ...
def export(data: bytes, to: str) -> str: ...
def fmt(data: bytes) -> bytes: ...
def assemble(
    events: str,
    history: bytes | None,
    timestamp: str,
    model_name: str | None = None,
    provider_name: str | None = None,
) -> tuple[bytes, str]: ...

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
