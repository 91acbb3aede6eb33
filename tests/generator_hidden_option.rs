//! A `--select` of an option the generator hides in the selected state says
//! that it is hidden and under which condition it is shown.

mod common;

use common::assert_input_error;

const QWEN: &str = "fixtures/cookbook/src/snippets/autoregressive/qwen35-deployment.jsx";
const QWEN_PAGE: &str = "fixtures/cookbook/cookbook/autoregressive/Qwen/Qwen3.5.mdx";

#[test]
fn a_hidden_option_names_its_condition() {
    for (file, at) in [
        (QWEN, "qwen35-deployment.jsx:1:14"),
        (QWEN_PAGE, "Qwen3.5.mdx:29:1"),
    ] {
        assert_input_error(
            &[
                "extract",
                file,
                "--select",
                "model=35b-a3b",
                "--select",
                "kvOffload=hicache",
            ],
            at,
            &[
                "hides option `kvOffload` in this state",
                "it is shown only when model=397b-a17b",
                "the options shown are: model, hardware, quantization, speculative",
            ],
        );
    }
    // An option no state shows is not called hidden.
    assert_input_error(
        &["extract", QWEN, "--select", "color=red"],
        "qwen35-deployment.jsx:1:14",
        &["has no option `color` in any state"],
    );
}
