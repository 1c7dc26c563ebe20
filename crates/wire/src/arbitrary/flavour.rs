//! The two flavours every strategy of [`super`] comes in.

/// Which values a strategy generates (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavour {
    /// Exactly what pydantic-ai 2.68.0 writes: every key present, only values it writes back unchanged.
    Pydantic,
    /// Anything msgflow must keep losslessly: absent keys, nulls, unknown keys, parts, content items and values.
    Any,
}
