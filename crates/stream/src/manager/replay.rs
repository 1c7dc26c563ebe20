//! Replaying logged stream events into a [`PartsManager`] (`apply_event`), with the
//! `TextPartDelta.apply` and `ThinkingPartDelta.apply` of pydantic-ai 2.68.0.

use super::*;

impl PartsManager {
    /// `apply_event`: replays a logged event, so that [`get_parts`](Self::get_parts) reflects it.
    /// `part_start` puts its part under its index (replacing a part of the same kind there),
    /// `part_delta` applies its delta to the part under its index; `part_end` and `final_result`
    /// change nothing.
    pub fn apply_event(&mut self, event: &AgentStreamEvent) -> Result<(), StreamError> {
        match event {
            AgentStreamEvent::PartStart(start) => {
                let index =
                    event_index(&start.index).map_or_else(|| VendorId::Str(start.index.to_string()), VendorId::Int);
                self.put_part(Some(index), start.part.clone());
                Ok(())
            }
            AgentStreamEvent::PartDelta(delta_event) => self.apply_delta_event(delta_event),
            AgentStreamEvent::PartEnd(_) | AgentStreamEvent::FinalResult(_) | AgentStreamEvent::Unknown(_) => Ok(()),
        }
    }

    fn apply_delta_event(&mut self, event: &PartDeltaEvent) -> Result<(), StreamError> {
        let Some(raw_index) = event_index(&event.index) else {
            return Err(StreamError::UnknownIndex { index: i64::MAX });
        };
        let Some(&index) = self.vendor_ids.get(&VendorId::Int(raw_index)) else {
            return Err(StreamError::UnknownIndex { index: raw_index });
        };
        let mismatch = |slot: &Slot| StreamError::ReplayKindMismatch {
            index: raw_index,
            delta_kind: event.delta.tag().map(|tag| tag.into_owned()).unwrap_or_default(),
            part_kind: slot.kind(),
        };
        let slot = &mut self.parts[index];
        if let Slot::Pending(_) = slot {
            // `assert not isinstance(part, ToolCallPartDelta)`.
            return Err(StreamError::UnknownIndex { index: raw_index });
        }
        match (&event.delta, slot) {
            (ModelResponsePartDelta::Text(delta), Slot::Text(part)) => apply_text_delta(part, delta),
            (ModelResponsePartDelta::Thinking(delta), Slot::Thinking(part)) => apply_thinking_delta(part, delta),
            (ModelResponsePartDelta::ToolCall(delta), Slot::Call(call)) => {
                let delta = CallDelta {
                    tool_name_delta: delta.tool_name_delta.get().cloned(),
                    args: Args::from_delta(delta.args_delta.get())?,
                    tool_call_id: delta.tool_call_id.get().cloned(),
                    provider_name: delta.provider_name.get().cloned(),
                    provider_details: delta.provider_details.get().cloned(),
                };
                delta.apply_to_call(call)
            }
            (ModelResponsePartDelta::Speech(_), Slot::Other(ModelResponsePart::Speech(_)))
            | (ModelResponsePartDelta::Unknown(_), _) => Err(StreamError::UnsupportedDelta {
                index: raw_index,
                delta_kind: event.delta.tag().map(|tag| tag.into_owned()).unwrap_or_default(),
            }),
            (_, slot) => Err(mismatch(slot)),
        }
    }
}

/// An event's `index` as an `i64` (`None` past its range, which no manager ever emits).
fn event_index(index: &Int) -> Option<i64> {
    index.to_string().parse().ok()
}
