//! The sequence and shape globals behave exactly like Apache's: `tests/c/seq_probe.c` (a C
//! program compiled against Apache's headers) prints a transcript of calls, results, container
//! layouts and capacities, and error kinds and messages; its run on ffihub's release
//! `libtvm_ffi.so` must be identical to its run on Apache's.

mod seq_common;

use seq_common::*;

#[test]
fn probe_transcript_matches_apache() {
    let ours = ffihub_lib_dir();
    let dir = scratch_dir("seq_probe");
    let binary = dir.join("seq_probe");
    compile(&workspace_root().join("tests/c/seq_probe.c"), &binary);
    let run = |lib: &std::path::Path| {
        let out = run_on(lib, &binary, &[]);
        assert!(
            out.status.success(),
            "seq_probe failed on {} with {}:\n{}\n{}",
            lib.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 transcript")
    };
    let apache = run(&apache_lib_dir());
    let ffihub = run(&ours);
    assert!(
        apache.ends_with("done\n"),
        "Apache's transcript is incomplete"
    );
    let _ = std::fs::write(dir.join("apache.txt"), &apache);
    let _ = std::fs::write(dir.join("ffihub.txt"), &ffihub);
    assert!(
        apache == ffihub,
        "transcripts differ (full files in {}):\n{}",
        dir.display(),
        first_differences(&apache, &ffihub, 10)
    );
}
