//! Memory checking of ffihub's runtime: the conformance scenario (`tests/c/scenario.c`) under
//! valgrind must report no errors and no definitely or indirectly lost bytes.

use std::process::Command;
use std::time::Duration;

use ffihub_tests::ffihub_runtime;

use crate::scenario::{run_with_timeout, scenario_binary};

/// valgrind slows the scenario down a lot (about 5 s on Apache's runtime on an idle machine).
const VALGRIND_TIMEOUT: Duration = Duration::from_secs(900);

/// The numbers of valgrind's final summary that the test asserts on.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    errors: u64,
    definitely_lost: u64,
    indirectly_lost: u64,
}

/// Parses `N` from "<label> N ..." on the last line containing `label` (`1,234` allowed).
fn number_after(text: &str, label: &str) -> Option<u64> {
    let line = text.lines().rev().find(|l| l.contains(label))?;
    let rest = &line[line.find(label)? + label.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .collect();
    digits.replace(',', "").parse().ok()
}

/// Reads valgrind's ERROR SUMMARY and LEAK SUMMARY from its stderr.
fn parse_summary(stderr: &str) -> Result<Summary, String> {
    let errors = number_after(stderr, "ERROR SUMMARY:").ok_or("no ERROR SUMMARY line")?;
    // With nothing left on the heap, valgrind prints no LEAK SUMMARY at all.
    let no_leaks = stderr.contains("All heap blocks were freed -- no leaks are possible");
    let lost = |label: &str| match number_after(stderr, label) {
        Some(n) => Ok(n),
        None if no_leaks => Ok(0),
        None => Err(format!("no `{label}` line in the leak summary")),
    };
    Ok(Summary {
        errors,
        definitely_lost: lost("definitely lost:")?,
        indirectly_lost: lost("indirectly lost:")?,
    })
}

#[test]
fn valgrind_scenario_on_ffihub() {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "`valgrind --version` failed with {}: is valgrind installed correctly?",
            out.status
        ),
        Err(e) => panic!(
            "valgrind is not available ({e}); install it with `apt-get install -y valgrind` \
             (scripts/test.sh does this before running the tests)"
        ),
    }
    let ours = ffihub_runtime();
    let binary = scenario_binary();
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--error-exitcode=99",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite,indirect",
    ])
    .arg(binary)
    // the runtime under test is chosen by the library path, as in a plain run
    .env("LD_LIBRARY_PATH", &ours.lib_dir);
    let out = run_with_timeout(cmd, VALGRIND_TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary = parse_summary(&stderr)
        .unwrap_or_else(|e| panic!("cannot read valgrind's summary ({e}):\n{stderr}"));
    let clean = summary
        == Summary {
            errors: 0,
            definitely_lost: 0,
            indirectly_lost: 0,
        };
    let passed = stdout.lines().any(|l| l == "PASSED: 0 check(s) failed");
    if !(out.status.success() && clean && passed) {
        // valgrind's report in full when it found something, else just its summary
        let report: String = if clean {
            let lines: Vec<&str> = stderr.lines().collect();
            lines[lines.len().saturating_sub(20)..].join("\n")
        } else {
            stderr.into_owned()
        };
        panic!(
            "valgrind run of the scenario on ffihub's runtime failed: status {}, {summary:?}\n\
             --- failed checks\n{}\n--- valgrind\n{report}",
            out.status,
            stdout
                .lines()
                .filter(|l| !l.starts_with("ok "))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn valgrind_summary_parsing() {
    let leaky = "==1== ERROR SUMMARY: 3 errors from 2 contexts (suppressed: 0 from 0)\n\
                 ==1==    definitely lost: 1,024 bytes in 2 blocks\n\
                 ==1==    indirectly lost: 48 bytes in 1 blocks\n";
    assert_eq!(
        parse_summary(leaky),
        Ok(Summary {
            errors: 3,
            definitely_lost: 1024,
            indirectly_lost: 48
        })
    );
    let clean = "==1== All heap blocks were freed -- no leaks are possible\n\
                 ==1== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)\n";
    assert_eq!(
        parse_summary(clean),
        Ok(Summary {
            errors: 0,
            definitely_lost: 0,
            indirectly_lost: 0
        })
    );
    assert!(parse_summary("nothing here").is_err());
}
