//! Converts pydantic-ai messages ([`msgflow_wire`]) to msgflow's canonical model
//! ([`msgflow_canonical`]) and back, losslessly.
//!
//! * [`to_canonical`] never fails: every wire part has a canonical meaning, or is kept whole as
//!   "other". Each canonical part and message keeps its wire origin.
//! * [`from_canonical`] starts from the origin and writes the canonical fields over it, so
//!   `from_canonical(&to_canonical(m)) == m` for every wire message (byte-identical once
//!   serialized); parts built in code become valid pydantic-ai 2.68.0 parts. It checks role
//!   consistency: user/system/tool messages are requests, assistant messages responses, and a part
//!   of the wrong kind is an error naming it.
//! * Roles of requests: `tool` when every part is a tool return, `system` when every part is a
//!   system prompt, `user` otherwise (see [`request_role`]).
//! * [`to_canonical_value`] reads loose JSON: wire messages and the seed's legacy dicts.
//! * History helpers ([`find_dangling_tool_calls`], ...) and the registry bridge
//!   ([`registry_events`], [`tool_registry`]).
//!
//! ```
//! use msgflow_adapter::{from_canonical, to_canonical};
//!
//! let json = r#"[{"parts":[{"content":"hi","timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt"}],"timestamp":null,"instructions":null,"kind":"request","run_id":"r1","conversation_id":null,"metadata":null,"state":"complete"}]"#;
//! let history = msgflow_wire::from_str(json)?;
//! let canonical = to_canonical(&history[0]);
//! assert_eq!(canonical.role(), msgflow_canonical::MessageRole::User);
//! let back = from_canonical(&canonical)?;
//! assert_eq!(msgflow_wire::to_string(&[back])?, json);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod error;
mod from_canonical;
mod history;
mod loose;
mod registry;
mod to_canonical;

pub use error::AdapterError;
pub use from_canonical::from_canonical;
pub use history::{
    find_dangling_tool_calls, from_canonical_history, get_content, get_tool_call_ids, get_tool_return_ids,
    to_canonical_history,
};
pub use loose::to_canonical_value;
pub use registry::{registry_events, tool_registry, SYNTHESIZED_TOOL_RETURN_METADATA_KEY};
pub use to_canonical::{request_role, to_canonical};
