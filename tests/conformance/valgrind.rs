//! Memory checking of ffihub's runtime: the conformance scenario (`tests/c/scenario/`) under
//! valgrind must report no errors and no definitely or indirectly lost bytes.

use ffihub_tests::ffihub_runtime;
use ffihub_tests::valgrind::{self, parse_summary, Summary};

use crate::scenario::scenario_binary;

#[test]
fn valgrind_scenario_on_ffihub() {
    // the runtime under test is chosen by the library path, as in a plain run (valgrind slows
    // the scenario down a lot: about 5 s on Apache's runtime on an idle machine)
    let cmd = valgrind::command_on(&ffihub_runtime(), &scenario_binary(), &[]);
    valgrind::assert_checks_clean("the scenario on ffihub's runtime", cmd, valgrind::TIMEOUT);
}

/// Asserts the summary read from a leaky run's report, whose ERROR SUMMARY line ends with
/// `(suppressed: <suppressed>)`.
pub(crate) fn assert_parses_leaky_summary(suppressed: &str) {
    let leaky = format!(
        "==1== ERROR SUMMARY: 3 errors from 2 contexts (suppressed: {suppressed})\n\
         ==1==    definitely lost: 1,024 bytes in 2 blocks\n\
         ==1==    indirectly lost: 48 bytes in 1 blocks\n"
    );
    assert_eq!(
        parse_summary(&leaky),
        Ok(Summary {
            errors: 3,
            definitely_lost: 1024,
            indirectly_lost: 48
        })
    );
}

#[test]
fn valgrind_summary_parsing() {
    assert_parses_leaky_summary("0 from 0");
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
