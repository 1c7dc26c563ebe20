//! Media out and back in: extract then inline is the identity on every generated history, the
//! references still read as histories, and missing, altered or colliding files are errors.

use msgflow_context::media::{extract, inline, MediaError, REF_KEY};
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::prelude::*;

const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk-M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn session() -> String {
    format!(
        concat!(
            r#"[{{"parts":[{{"content":["look",{{"data":"{png}","media_type":"image/png","vendor_metadata":null,"kind":"binary","identifier":"abc123"}}],"timestamp":"2025-01-02T00:00:00Z","part_kind":"user-prompt"}}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}},"#,
            r#"{{"parts":[{{"tool_name":"shot","args":{{}},"tool_call_id":"c1","id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"}}],"usage":{{}},"model_name":null,"timestamp":"2025-01-02T00:00:01Z","kind":"response"}},"#,
            r#"{{"parts":[{{"tool_name":"shot","content":["here",{{"data":"{png}","media_type":"image/png","vendor_metadata":{{"detail":"high"}},"kind":"binary","identifier":"abc123"}}],"tool_call_id":"c1","metadata":null,"timestamp":"2025-01-02T00:00:02Z","part_kind":"tool-return"}}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}}]"#
        ),
        png = PNG_1X1
    )
}

#[test]
fn extract_leaves_loadable_references_and_inline_restores_every_byte() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let input = session();
    let mut history = msgflow_wire::from_str(&input)?;
    let extraction = extract(&mut history, dir.path())?;
    assert_eq!(extraction.files.len(), 2);
    assert_eq!(
        extraction.files[0].file, extraction.files[1].file,
        "content-addressed: one file for both"
    );
    assert!(extraction.files[0].file.ends_with(".png"));
    let written = msgflow_wire::to_string(&history)?;
    assert!(!written.contains(PNG_1X1) && written.contains(REF_KEY));
    assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);

    // Extracting again changes nothing; inlining restores the input exactly.
    let mut again = msgflow_wire::from_str(&written)?;
    assert!(extract(&mut again, dir.path())?.files.is_empty());
    assert_eq!(inline(&mut again, dir.path())?, 2);
    assert_eq!(msgflow_wire::to_string(&again)?, input);
    Ok(())
}

#[test]
fn a_missing_or_altered_file_is_an_error_naming_it() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let mut history = msgflow_wire::from_str(&session())?;
    let extraction = extract(&mut history, dir.path())?;
    let path = dir.path().join(&extraction.files[0].file);

    std::fs::write(&path, b"not the image")?;
    let err = inline(&mut history.clone(), dir.path()).unwrap_err();
    assert!(
        matches!(
            err,
            MediaError::Altered {
                message: 0,
                part: 0,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains(&extraction.files[0].file), "{err}");

    // Extracting onto the altered file refuses to overwrite it.
    let mut fresh = msgflow_wire::from_str(&session())?;
    let err = extract(&mut fresh, dir.path()).unwrap_err();
    assert!(matches!(err, MediaError::Collision { .. }), "{err}");
    assert_eq!(std::fs::read(&path)?, b"not the image");

    std::fs::remove_file(&path)?;
    let err = inline(&mut history, dir.path()).unwrap_err();
    assert!(matches!(err, MediaError::Missing { .. }), "{err}");
    assert!(err.to_string().contains("cannot read"), "{err}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn extract_then_inline_is_the_identity(pydantic in history(Flavour::Pydantic), any in history(Flavour::Any)) {
        for input in [pydantic, any] {
            let dir = tempfile::tempdir().unwrap();
            let before = msgflow_wire::to_vec(&input).unwrap();
            let mut history = input.clone();
            let extraction = extract(&mut history, dir.path()).unwrap();
            let written = msgflow_wire::to_vec(&history).unwrap();
            let mut reread = msgflow_wire::from_slice(&written).expect("references are histories");
            prop_assert_eq!(&reread, &history);
            let restored = inline(&mut reread, dir.path()).unwrap();
            prop_assert_eq!(restored, extraction.files.len());
            prop_assert_eq!(msgflow_wire::to_vec(&reread).unwrap(), before);
        }
    }
}
