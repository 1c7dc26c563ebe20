//! A history always converts to the same output and report, in every format and form: where
//! pydantic-ai makes random ids (a UI message's, a denial's approval id), msgflow makes them from
//! the history, so that converting twice gives the same bytes (caches, diffs, tests downstream).

use msgflow_formats::{convert_with, ConvertOptions, Format};
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

const CASES: usize = 300;

#[test]
fn every_format_converts_a_history_to_the_same_output_each_time() {
    let seed = [41u8; 32];
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let strategy = history(Flavour::Pydantic);
    let forms: Vec<(Format, ConvertOptions)> = [Format::OpenAiChat, Format::Anthropic, Format::AgUi, Format::Otel]
        .into_iter()
        .map(|format| (format, ConvertOptions::default()))
        .chain([5, 6].into_iter().flat_map(|sdk_version| {
            [false, true].map(|lossless| {
                let options = ConvertOptions {
                    lossless,
                    vercel_sdk_version: sdk_version,
                    ..ConvertOptions::default()
                };
                (Format::VercelUi, options)
            })
        }))
        .chain([(
            Format::AgUi,
            ConvertOptions {
                lossless: true,
                ..ConvertOptions::default()
            },
        )])
        .collect();
    let mut converted = 0;
    for case in 0..CASES {
        let text = msgflow_wire::to_string(&strategy.new_tree(&mut runner).expect("a history").current())
            .expect("a generated history serialises");
        for (format, options) in &forms {
            let first = convert_with(&text, Format::PydanticAi, *format, options);
            let second = convert_with(&text, Format::PydanticAi, *format, options);
            assert_eq!(first, second, "case {case}, to {format:?} ({options:?}): {text}");
            converted += usize::from(first.is_ok());
        }
    }
    // Most histories convert (the others are refused the same way each time, also compared).
    assert!(converted > CASES * forms.len() / 2, "only {converted} conversions");
}
