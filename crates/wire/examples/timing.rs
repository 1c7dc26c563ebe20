//! Quick timing of parse / serialise against the IgnoredAny limit: `cargo run --release -p msgflow-wire --example timing -- FILE`.

use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let path = std::env::args().nth(1).expect("FILE");
    let input = std::fs::read(&path).unwrap();
    let mb = input.len() as f64 / 1e6;
    let runs = 7;
    if let Ok(mode) = std::env::var("ONLY") {
        for _ in 0..20 {
            let h = msgflow_wire::from_slice(&input).unwrap();
            if mode == "ser" {
                let out = msgflow_wire::to_vec(&h).unwrap();
                assert!(out.len() == input.len());
            }
        }
        return;
    }
    let mut limit = Vec::new();
    let mut value = Vec::new();
    let mut parse = Vec::new();
    let mut ser = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        serde_json::from_slice::<serde::de::IgnoredAny>(&input).unwrap();
        limit.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let v = serde_json::from_slice::<serde_json::Value>(&input).unwrap();
        value.push(t.elapsed().as_secs_f64());
        drop(v);
        let t = Instant::now();
        let h = msgflow_wire::from_slice(&input).unwrap();
        parse.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let out = msgflow_wire::to_vec(&h).unwrap();
        ser.push(t.elapsed().as_secs_f64());
        assert!(out == input);
    }
    let (l, v, p, s) = (median(limit), median(value), median(parse), median(ser));
    println!("{mb:.1} MB  IgnoredAny {:.1} ms ({:.0} MB/s)  Value {:.1} ms  parse {:.1} ms ({:.0} MB/s, {:.2}x limit)  serialise {:.1} ms ({:.0} MB/s)",
        l * 1e3, mb / l, v * 1e3, p * 1e3, mb / p, p / l, s * 1e3, mb / s);
}
