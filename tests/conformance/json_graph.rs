//! Conformance test: JSON text and JSON object graphs across runtimes. One C program
//! (`tests/c/json_graph.c`), compiled once against Apache's headers, runs on Apache's runtime and
//! on ours (with Apache's testing library loaded, for reflected objects):
//!
//! * `write`: both runtimes write the same graph text for the same value, and each reads its
//!   own graph back to the same graph;
//! * `read`: the graph written by one runtime is read by the other and written again unchanged
//!   (keeping sharing, type keys, BigInt and object payloads), and the value read equals the
//!   reader's own build of it (`ffi.RecursiveEq`, and `ffi.StructuralEqual` wherever the
//!   types support structural equality);
//! * `json`: `ffi.json.Parse` / `ffi.json.Stringify` give the same results and the same error
//!   messages on valid and invalid documents;
//! * `bad`: hostile input (truncated, invalid, 100,000 levels deep, cyclic) raises ValueError on
//!   ours, plainly and under valgrind. (Apache's recursive parser overflows the stack on the
//!   deep documents, so this mode runs on ours only.)

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use ffihub_tests::valgrind;
use ffihub_tests::{
    apache_runtime, apache_testing_lib, assert_checks_passed, assert_same_transcripts, built_once,
    command_on, ffihub_runtime, run_with_timeout, scratch_dir, Runtime,
};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

fn binary() -> PathBuf {
    let (sources, args) = (["tests/c/json_graph.c"], ["-ldl", "-D_GNU_SOURCE"]);
    built_once(
        &apache_runtime(),
        "json_graph",
        "json_graph",
        &sources,
        &args,
    )
}

fn with_args(mut cmd: Command, args: &[&str]) -> Command {
    cmd.arg(apache_testing_lib()).args(args);
    cmd
}

fn run(runtime: &Runtime, args: &[&str]) -> Output {
    run_with_timeout(with_args(command_on(runtime, &binary()), args), RUN_TIMEOUT)
}

fn passed(runtime: &Runtime, args: &[&str], out: &Output) -> String {
    let what = format!(
        "json_graph {} on the {} runtime",
        args.join(" "),
        runtime.name
    );
    assert_checks_passed(&what, out)
}

/// The graph text a transcript printed (its `graph ...` line).
fn graph_line(transcript: &str) -> &str {
    transcript
        .lines()
        .find_map(|l| l.strip_prefix("graph "))
        .expect("the transcript has a graph line")
}

#[test]
fn json_graph_written_alike_on_both_runtimes() {
    let (apache, ours) = (apache_runtime(), ffihub_runtime());
    let (a, b) = (run(&apache, &["write"]), run(&ours, &["write"]));
    assert_same_transcripts("the graph-writing transcripts", (&apache, &a), (&ours, &b));
    passed(&apache, &["write"], &a);
    passed(&ours, &["write"], &b);
}

#[test]
fn json_graph_read_across_runtimes() {
    let (apache, ours) = (apache_runtime(), ffihub_runtime());
    let dir = scratch_dir("json_graph_read");
    for (writer, reader) in [(&apache, &ours), (&ours, &apache)] {
        let written = passed(writer, &["write"], &run(writer, &["write"]));
        let graph = graph_line(&written);
        let file = dir.join(format!("from_{}.json", writer.name));
        std::fs::write(&file, graph).expect("write the graph file");
        let path = file.to_str().expect("UTF-8 path");
        let read = passed(reader, &["read", path], &run(reader, &["read", path]));
        assert_eq!(
            graph_line(&read),
            graph,
            "the graph {} wrote, read by {} and written again, changed",
            writer.name,
            reader.name
        );
    }
}

#[test]
fn json_text_alike_on_both_runtimes() {
    let (apache, ours) = (apache_runtime(), ffihub_runtime());
    let (a, b) = (run(&apache, &["json"]), run(&ours, &["json"]));
    assert_same_transcripts(
        "the json.Parse/Stringify transcripts",
        (&apache, &a),
        (&ours, &b),
    );
    passed(&apache, &["json"], &a);
    passed(&ours, &["json"], &b);
}

#[test]
fn json_bad_input_raises_value_error_on_ffihub() {
    let ours = ffihub_runtime();
    passed(&ours, &["bad"], &run(&ours, &["bad"]));
}

#[test]
fn valgrind_json_graph_on_ffihub() {
    let ours = ffihub_runtime();
    let dir = scratch_dir("json_graph_valgrind");
    let written = passed(&ours, &["write"], &run(&ours, &["write"]));
    let file = dir.join("graph.json");
    std::fs::write(&file, graph_line(&written)).expect("write the graph file");
    let path = file.to_str().expect("UTF-8 path");
    // The four runs are independent: run them side by side.
    std::thread::scope(|scope| {
        for args in [vec!["write"], vec!["read", path], vec!["json"], vec!["bad"]] {
            let ours = &ours;
            scope.spawn(move || {
                let cmd = with_args(valgrind::command_on(ours, &binary(), &[]), &args);
                let what = format!("json_graph {} on ffihub's runtime", args.join(" "));
                valgrind::assert_checks_clean(&what, cmd, valgrind::TIMEOUT);
            });
        }
    });
}
