//! Gemini: msgflow checks a history against Gemini's rules ([`rules`]); it exports no Gemini
//! request (pydantic-ai's `GoogleModel` mapping is not mirrored).

pub(crate) mod rules;
