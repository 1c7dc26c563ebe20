//! `handle_text_delta`, `handle_thinking_delta`, `handle_tool_call_delta` and
//! `handle_tool_call_part` of pydantic-ai 2.68.0's `ModelResponsePartsManager`.

use super::*;

impl PartsManager {
    /// `handle_text_delta`: appends text to the part `vendor_part_id` names (or to the latest part
    /// if it is text), or starts a text part; with `thinking_tags`, a delta that is exactly the start
    /// tag starts a thinking part that takes the following deltas until the end tag.
    pub fn handle_text_delta(&mut self, delta: TextDelta<'_>) -> Result<Option<AgentStreamEvent>, StreamError> {
        let TextDelta {
            vendor_part_id,
            content,
            id,
            provider_name,
            provider_details,
            citations,
            thinking_tags,
            ignore_leading_whitespace,
        } = delta;
        // The common case, more text for the text part the vendor id points at and nothing else:
        // what the general path below does for it (`TextPartDelta._apply_to_part` with no name,
        // details or citations changes only the content), in fewer steps.
        if let (Some(vendor), None, None, None, None) = (
            &vendor_part_id,
            &provider_name,
            &provider_details,
            &citations,
            &thinking_tags,
        ) {
            if let Some(&index) = self.vendor_ids.get(vendor) {
                if let Slot::Text(part) = &mut self.parts[index] {
                    // `{}` details become `None` when a delta is applied (`merge_or_none`).
                    if !part.provider_details.get().is_some_and(json::is_empty_object) {
                        part.content.push_str(&content);
                        let wire = TextPartDelta::new(content.into_owned());
                        return Ok(Some(Self::delta_event(index, ModelResponsePartDelta::Text(wire))));
                    }
                }
            }
        }
        let mut existing_text: Option<usize> = None;
        match &vendor_part_id {
            None => {
                if let Some(Slot::Text(_)) = self.parts.last() {
                    existing_text = Some(self.parts.len() - 1);
                }
            }
            Some(vendor) => {
                if let Some(&index) = self.vendor_ids.get(vendor) {
                    match &self.parts[index] {
                        Slot::Thinking(_) if thinking_tags.is_some() => {
                            let (_, end) = thinking_tags.as_ref().expect("checked just above");
                            if content.as_ref() == end.as_str() {
                                // `_handle_embedded_thinking_end`: the next text delta starts a new part.
                                self.vendor_ids.remove(vendor);
                                return Ok(None);
                            }
                            return self
                                .embedded_thinking_content(index, content, provider_name, provider_details)
                                .map(Some);
                        }
                        Slot::Text(_) => existing_text = Some(index),
                        other => {
                            return Err(StreamError::WrongPartKind {
                                delta: "text",
                                index,
                                part_kind: other.kind(),
                            })
                        }
                    }
                }
            }
        }

        if let Some((start, _)) = &thinking_tags {
            if content.as_ref() == start.as_str() {
                // `_handle_embedded_thinking_start`.
                if let Some(vendor) = &vendor_part_id {
                    self.vendor_ids.remove(vendor);
                }
                let mut part = ThinkingPart::new(String::new());
                part.provider_name = provider_name.into();
                part.provider_details = provider_details.into();
                let index = self.append(Slot::Thinking(part), vendor_part_id);
                return Ok(self.start_event(index));
            }
        }

        match existing_text {
            None => {
                // Ollama + Qwen3 emit `<think>\n</think>\n\n` or empty text ahead of tool calls.
                if ignore_leading_whitespace && (content.is_empty() || py_isspace(&content)) {
                    return Ok(None);
                }
                let mut part = TextPart::new(content.into_owned());
                part.id = id.into();
                part.provider_name = provider_name.into();
                part.provider_details = provider_details.into();
                part.citations = citations.into();
                let index = self.append(Slot::Text(part), vendor_part_id);
                Ok(self.start_event(index))
            }
            Some(index) => {
                let Slot::Text(part) = &mut self.parts[index] else {
                    unreachable!("index points at a text part")
                };
                let mut wire = TextPartDelta::new(content.into_owned());
                wire.provider_name =
                    Self::resolve_provider_name(part.provider_name.get().map(String::as_str), provider_name.as_deref())
                        .into();
                wire.provider_details = provider_details.into();
                wire.citations_delta = citations.into();
                apply_text_delta(part, &wire)?;
                Ok(Some(Self::delta_event(index, ModelResponsePartDelta::Text(wire))))
            }
        }
    }

    /// `_handle_embedded_thinking_content`.
    fn embedded_thinking_content(
        &mut self,
        index: usize,
        content: Cow<'_, str>,
        provider_name: Option<String>,
        provider_details: Option<RawJson>,
    ) -> Result<AgentStreamEvent, StreamError> {
        let Slot::Thinking(part) = &mut self.parts[index] else {
            unreachable!("index points at a thinking part")
        };
        let mut wire = ThinkingPartDelta::new();
        wire.content_delta = Field::Present(content.into_owned());
        wire.provider_name =
            Self::resolve_provider_name(part.provider_name.get().map(String::as_str), provider_name.as_deref()).into();
        wire.provider_details = provider_details.into();
        apply_thinking_delta(part, &wire)?;
        Ok(Self::delta_event(index, ModelResponsePartDelta::Thinking(wire)))
    }

    /// `handle_thinking_delta`: appends thinking to the part `vendor_part_id` names (or to the
    /// latest part if it is thinking), or starts a thinking part.
    pub fn handle_thinking_delta(&mut self, delta: ThinkingDelta<'_>) -> Result<Option<AgentStreamEvent>, StreamError> {
        let ThinkingDelta {
            vendor_part_id,
            content,
            id,
            signature,
            provider_name,
            provider_details,
        } = delta;
        let mut existing: Option<usize> = None;
        match &vendor_part_id {
            None => {
                if let Some(Slot::Thinking(_)) = self.parts.last() {
                    existing = Some(self.parts.len() - 1);
                }
            }
            Some(vendor) => {
                if let Some(&index) = self.vendor_ids.get(vendor) {
                    match &self.parts[index] {
                        Slot::Thinking(_) => existing = Some(index),
                        other => {
                            return Err(StreamError::WrongPartKind {
                                delta: "thinking",
                                index,
                                part_kind: other.kind(),
                            })
                        }
                    }
                }
            }
        }
        match existing {
            None => {
                if content.is_none() && signature.is_none() && provider_details.is_none() {
                    return Err(StreamError::EmptyThinkingPart);
                }
                let mut part = ThinkingPart::new(content.map(Cow::into_owned).unwrap_or_default());
                part.id = id.into();
                part.signature = signature.into();
                part.provider_name = provider_name.into();
                part.provider_details = provider_details.into();
                let index = self.append(Slot::Thinking(part), vendor_part_id);
                Ok(self.start_event(index))
            }
            Some(index) => {
                if content.is_none() && signature.is_none() && provider_name.is_none() && provider_details.is_none() {
                    return Ok(None);
                }
                let Slot::Thinking(part) = &mut self.parts[index] else {
                    unreachable!("index points at thinking")
                };
                let mut wire = ThinkingPartDelta::new();
                wire.content_delta = content.map(Cow::into_owned).into();
                wire.signature_delta = signature.into();
                wire.provider_name =
                    Self::resolve_provider_name(part.provider_name.get().map(String::as_str), provider_name.as_deref())
                        .into();
                wire.provider_details = provider_details.into();
                apply_thinking_delta(part, &wire)?;
                Ok(Some(Self::delta_event(index, ModelResponsePartDelta::Thinking(wire))))
            }
        }
    }

    /// `handle_tool_call_delta`: builds a tool call from a name, an id and arguments arriving in
    /// any order and in pieces. A call stays pending (no event, not in the parts) until it has a
    /// name; it then starts with a `part_start` event, and later deltas give `part_delta` events.
    pub fn handle_tool_call_delta(
        &mut self,
        delta: ToolCallDelta<'_>,
    ) -> Result<Option<AgentStreamEvent>, StreamError> {
        let ToolCallDelta {
            vendor_part_id,
            tool_name,
            args,
            tool_call_id,
            provider_name,
            provider_details,
        } = delta;
        // The common case, a fragment of a call's string arguments and nothing else: what the
        // general path below does for it, without copying the fragment twice.
        if let (Some(vendor), None, Some(ArgsDelta::Text(fragment)), None, None, None) = (
            &vendor_part_id,
            &tool_name,
            &args,
            &tool_call_id,
            &provider_name,
            &provider_details,
        ) {
            if let Some(&index) = self.vendor_ids.get(vendor) {
                if let Slot::Call(call) = &mut self.parts[index] {
                    call.args.push_text(fragment)?;
                    let mut wire = ToolCallPartDelta::new();
                    wire.args_delta = Field::Present(RawJson::string(fragment));
                    wire.tool_call_id = call.tool_call_id.get().filter(|id| !id.is_empty()).cloned().into();
                    return Ok(Some(Self::delta_event(index, ModelResponsePartDelta::ToolCall(wire))));
                }
            }
        }
        let args = match args {
            None => Args::Null,
            Some(ArgsDelta::Text(text)) => Args::Text(text.to_owned()),
            Some(ArgsDelta::Dict(raw)) => Args::from_delta(Some(&raw))?,
        };
        let mut existing: Option<usize> = None;
        match &vendor_part_id {
            None => {
                // A named delta without a vendor id is always a new call.
                if tool_name.is_none() {
                    if let Some(Slot::Call(_) | Slot::Pending(_)) = self.parts.last() {
                        existing = Some(self.parts.len() - 1);
                    }
                }
            }
            Some(vendor) => {
                if let Some(&index) = self.vendor_ids.get(vendor) {
                    match &self.parts[index] {
                        Slot::Call(_) | Slot::Pending(_) => existing = Some(index),
                        other => {
                            return Err(StreamError::WrongPartKind {
                                delta: "tool call",
                                index,
                                part_kind: other.kind(),
                            })
                        }
                    }
                }
            }
        }
        match existing {
            None => {
                let delta = CallDelta {
                    tool_name_delta: tool_name,
                    args,
                    tool_call_id,
                    provider_name,
                    provider_details: provider_details.filter(|raw| !raw.is_null()),
                };
                // `delta.as_part() or delta`.
                let slot = match delta.tool_name_delta {
                    Some(name) => Slot::Call(new_call(
                        name,
                        delta.args,
                        delta.tool_call_id,
                        delta.provider_name,
                        delta.provider_details,
                        &mut self.ids,
                    )),
                    None => Slot::Pending(Pending {
                        args: delta.args,
                        tool_call_id: delta.tool_call_id,
                        provider_name: delta.provider_name,
                        provider_details: delta.provider_details,
                    }),
                };
                let index = self.append(slot, vendor_part_id);
                Ok(self.start_event(index))
            }
            Some(index) => {
                let existing_provider_name = match &self.parts[index] {
                    Slot::Call(call) => call.provider_name().map(str::to_owned),
                    Slot::Pending(pending) => pending.provider_name.clone(),
                    _ => unreachable!("index points at a tool call"),
                };
                let mut delta = CallDelta {
                    tool_name_delta: tool_name,
                    args,
                    tool_call_id,
                    provider_name: Self::resolve_provider_name(
                        existing_provider_name.as_deref(),
                        provider_name.as_deref(),
                    ),
                    provider_details: provider_details.filter(|raw| !raw.is_null()),
                };
                match &mut self.parts[index] {
                    Slot::Call(call) => {
                        delta.apply_to_call(call)?;
                        if delta.tool_call_id.as_deref().is_none_or(str::is_empty) {
                            if let Some(id) = call.tool_call_id.get().filter(|id| !id.is_empty()) {
                                delta.tool_call_id = Some(id.clone());
                            }
                        }
                        Ok(Some(Self::delta_event(
                            index,
                            ModelResponsePartDelta::ToolCall(delta.into_wire()),
                        )))
                    }
                    Slot::Pending(pending) => match delta.apply_to_pending(pending, &mut self.ids)? {
                        Some(call) => {
                            self.parts[index] = Slot::Call(call);
                            Ok(self.start_event(index))
                        }
                        None => Ok(None),
                    },
                    _ => unreachable!("index points at a tool call"),
                }
            }
        }
    }

    /// `handle_tool_call_part`: creates a complete call, or replaces the call `vendor_part_id`
    /// names.
    #[allow(clippy::too_many_arguments)]
    pub fn handle_tool_call_part(
        &mut self,
        vendor_part_id: Option<VendorId>,
        tool_name: &str,
        args: Option<RawJson>,
        tool_call_id: Option<String>,
        id: Option<String>,
        provider_name: Option<String>,
        provider_details: Option<RawJson>,
    ) -> AgentStreamEvent {
        let tool_call_id = tool_call_id
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| self.ids.next());
        let call = Call {
            native: false,
            tool_name: tool_name.to_owned(),
            args: Args::from_field(args.into()),
            tool_call_id: Field::Present(tool_call_id),
            tool_kind: Field::Null,
            id: id.into(),
            provider_name: provider_name.into(),
            provider_details: provider_details.into(),
            extra: Extra::new(),
        };
        let part = call.to_part();
        let index = match vendor_part_id {
            None => self.append(Slot::Call(call), None),
            Some(vendor) => {
                let index = match self.vendor_ids.get(&vendor) {
                    Some(&index) if matches!(&self.parts[index], Slot::Call(existing) if !existing.native) => {
                        self.parts[index] = Slot::Call(call);
                        index
                    }
                    _ => self.append(Slot::Call(call), None),
                };
                self.vendor_ids.insert(vendor, index);
                index
            }
        };
        AgentStreamEvent::from(PartStartEvent::new(Int::from(index as i64), part))
    }
}
