//! Red-team pass 3 findings fixed in the file layer, the fetcher and
//! `--changed-from` (the bash ones have their own modules).

use crate::Repo;

/// #15: `--max-file-bytes u64::MAX` is "no cap", not a cap of 0 (`max + 1`
/// wrapped) that read every file as empty.
#[test]
fn the_largest_max_file_bytes_reads_files_whole() {
    let repo = Repo::new();
    repo.write("small.sh", "sglang serve --model-path m --tp 8\n");
    let o = repo.run(&[
        "extract",
        "--max-file-bytes",
        "18446744073709551615",
        "small.sh",
    ]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("launch 1:"), "{}", o.both());
}
