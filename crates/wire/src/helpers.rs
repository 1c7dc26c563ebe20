//! Hand-written conveniences on the generated types.
