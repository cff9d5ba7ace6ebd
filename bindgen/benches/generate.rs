//! Generates all three languages for a synthetic library of 2,000 functions and 500 types and
//! prints the time of each stage. Target: under 2 s in total (`cargo bench -p ffihub-bindgen`).

use ffihub_bindgen::{generate, ir, lang};
use ffihub_schema::{
    Constructor, Field, FieldFlags, Function, Method, ObjectType, Origin, Reflection, Signature,
    TypeSchema,
};
use std::time::Instant;

fn t(origin: Origin) -> TypeSchema {
    TypeSchema::new(origin)
}

fn synthetic(functions: usize, types: usize) -> Reflection {
    let shapes = [
        t(Origin::Int),
        t(Origin::String),
        TypeSchema::with_args(Origin::Array, vec![t(Origin::Float)]),
        TypeSchema::with_args(Origin::Map, vec![t(Origin::String), t(Origin::Int)]),
        TypeSchema::with_args(Origin::Optional, vec![t(Origin::Bool)]),
        TypeSchema::function(Signature::new(vec![t(Origin::Int)], t(Origin::None))),
    ];
    let fns = (0..functions)
        .map(|i| Function {
            name: format!("bench.group{}.function_{i}", i % 20),
            doc: format!("Function number {i}."),
            signature: (i % 10 != 0).then(|| {
                Signature::new(
                    (0..i % 4)
                        .map(|j| shapes[(i + j) % shapes.len()].clone())
                        .collect(),
                    shapes[i % shapes.len()].clone(),
                )
            }),
            metadata: Default::default(),
        })
        .collect();
    let tys = (0..types)
        .map(|i| {
            let key = format!("bench.Type{i}");
            // Chains of inheritance five deep.
            let mut ancestors = vec!["ffi.Object".to_string()];
            if i % 5 != 0 {
                let root = i - i % 5;
                ancestors.extend((root..i).map(|a| format!("bench.Type{a}")));
            }
            ObjectType {
                ancestors,
                doc: format!("Type number {i}."),
                total_size: None,
                is_final: false,
                constructor: Some(Constructor::AutoInit),
                fields: (0..4)
                    .map(|f| Field {
                        name: format!("field_{i}_{f}"),
                        ty: Some(shapes[(i + f) % 5].clone()),
                        doc: String::new(),
                        flags: FieldFlags(FieldFlags::WRITABLE),
                        default: None,
                        offset: None,
                        size: None,
                        alignment: None,
                        metadata: Default::default(),
                    })
                    .collect(),
                methods: (0..3)
                    .map(|m| Method {
                        name: format!("method_{m}"),
                        is_static: m == 2,
                        doc: String::new(),
                        signature: Some(Signature::new(
                            if m == 2 {
                                vec![]
                            } else {
                                vec![TypeSchema::type_key(&key)]
                            },
                            t(Origin::Int),
                        )),
                        metadata: Default::default(),
                    })
                    .collect(),
                type_attrs: vec![],
                key,
            }
        })
        .collect();
    Reflection::new(vec!["libbench.so".into()], None, fns, tys)
}

fn main() {
    let start = Instant::now();
    let doc = synthetic(2000, 500);
    let text = doc.to_yaml_string().expect("serialize");
    let doc = Reflection::from_yaml_str(&text).expect("parse");
    let parsed = start.elapsed();
    let lib = ir::build(&doc).expect("acyclic");
    let built = start.elapsed();
    let backends: Vec<&lang::Backend> = lang::BACKENDS.iter().collect();
    let cfg = lang::Config {
        name: "bench".into(),
        allow_unsupported: vec![],
        ..Default::default()
    };
    let files = match generate(&lib, &backends, &cfg) {
        Ok(files) => files,
        Err(diags) => {
            eprintln!("{diags}");
            std::process::exit(1);
        }
    };
    let total = start.elapsed();
    let bytes: usize = files.values().map(String::len).sum();
    println!(
        "generate: 2000 functions, 500 types, 3 languages: {} files, {} KiB; \
         YAML round trip {:.0} ms, IR {:.0} ms, render {:.0} ms, total {:.0} ms (target < 2000 ms)",
        files.len(),
        bytes / 1024,
        parsed.as_secs_f64() * 1e3,
        (built - parsed).as_secs_f64() * 1e3,
        (total - built).as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3
    );
}
