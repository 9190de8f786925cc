//! What a failed training's last log lines reveal beyond its exit code: GPU faults the NVIDIA
//! driver reports (Xid lines), NCCL's errors and timeouts, and CUDA running out of GPU memory.
//! Hints, not verdicts: each names the line it read and what such a line usually means.

use crate::model::kept::{HintKind, LogHint};

/// What NVIDIA's documented Xid codes usually mean, for those a training meets most.
fn xid_meaning(code: u32) -> &'static str {
    match code {
        13 => "a graphics engine exception: often the program's own bad memory access",
        31 => "a GPU memory page fault: often the program's own bad memory access",
        43 => "the GPU stopped processing: usually the program's fault",
        45 => "the driver cleaned up after a killed or faulting process",
        48 => "a double-bit ECC memory error: the GPU needs an administrator",
        61 | 62 => "an internal micro-controller fault: the GPU needs a reset",
        63 | 64 => "ECC page retirement or row remapping: the GPU needs a reset",
        74 => "an NVLink error between GPUs: the node needs an administrator",
        79 => "the GPU fell off the bus: the node needs an administrator",
        92 => "a high single-bit ECC error rate: the GPU needs an administrator",
        94 => "a contained ECC error: the affected program must restart",
        95 => "an uncontained ECC error: the GPU needs a reset",
        119 | 120 => "a GSP firmware error: the GPU needs a reset",
        _ => "a GPU fault the NVIDIA driver reported (see NVIDIA's Xid list)",
    }
}

/// The Xid code of a driver line such as `NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, ...`.
fn xid(line: &str) -> Option<u32> {
    let after = &line[line.find("Xid")? + 3..];
    let after = after.trim_start();
    let after = match after.strip_prefix('(') {
        Some(rest) => &rest[rest.find(')')? + 1..],
        None => after,
    };
    let after = after.trim_start_matches([':', ' ']);
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn hint(kind: HintKind, line: &str, meaning: String) -> LogHint {
    LogHint {
        kind,
        line: line.chars().take(300).collect(),
        meaning,
    }
}

/// The hints of one line, if it reveals anything.
fn of_line(line: &str) -> Option<LogHint> {
    if let Some(code) = xid(line) {
        return Some(hint(
            HintKind::Gpu,
            line,
            format!("NVIDIA Xid {code}: {}", xid_meaning(code)),
        ));
    }
    let lower = line.to_ascii_lowercase();
    if lower.contains("cuda out of memory") || lower.contains("cuda error: out of memory") {
        return Some(hint(
            HintKind::GpuMemory,
            line,
            "the GPU ran out of memory: a smaller batch, a smaller model per GPU, or more GPUs"
                .to_owned(),
        ));
    }
    if lower.contains("uncorrectable ecc error") {
        return Some(hint(
            HintKind::Gpu,
            line,
            "an uncorrectable ECC memory error: the GPU needs an administrator".to_owned(),
        ));
    }
    if lower.contains("watchdog caught collective operation timeout")
        || (lower.contains("nccl") && lower.contains("timeout"))
    {
        return Some(hint(
            HintKind::Nccl,
            line,
            "a collective operation timed out: a worker stopped or fell behind (check the \
             other pods' logs), or the network between nodes failed"
                .to_owned(),
        ));
    }
    if lower.contains("nccl warn")
        || lower.contains("nccl error")
        || lower.contains("ncclsystemerror")
        || lower.contains("ncclinternalerror")
        || lower.contains("ncclremoteerror")
        || lower.contains("ncclunhandledcudaerror")
    {
        return Some(hint(
            HintKind::Nccl,
            line,
            "NCCL, the GPUs' communication library, reported an error: often a peer that \
             exited, or the network or NVLink between GPUs"
                .to_owned(),
        ));
    }
    None
}

/// The hints in `lines`, one per kind and meaning (the first line that shows each), at most
/// [`MAX_HINTS`].
pub fn hints<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<LogHint> {
    let mut found: Vec<LogHint> = Vec::new();
    for line in lines {
        let Some(hint) = of_line(line) else {
            continue;
        };
        if found.iter().any(|h| h.meaning == hint.meaning) {
            continue;
        }
        found.push(hint);
        if found.len() == MAX_HINTS {
            break;
        }
    }
    found
}

/// The most hints one log gives.
pub const MAX_HINTS: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xid_lines_name_the_fault() {
        let lines = [
            "[ 1234.5678] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
            "NVRM: Xid (PCI:0000:86:00): 48, pid=2231, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
            "NVRM: Xid (PCI:0000:af:00): 31, pid=91, name=python3, Ch 00000010, intr 10000000. MMU Fault",
        ];
        let found = hints(lines);
        let said: Vec<&str> = found.iter().map(|h| h.meaning.as_str()).collect();
        assert_eq!(
            said,
            [
                "NVIDIA Xid 79: the GPU fell off the bus: the node needs an administrator",
                "NVIDIA Xid 48: a double-bit ECC memory error: the GPU needs an administrator",
                "NVIDIA Xid 31: a GPU memory page fault: often the program's own bad memory access",
            ]
        );
        assert!(found.iter().all(|h| h.kind == HintKind::Gpu));
    }

    #[test]
    fn nccl_and_cuda_lines_say_what_they_usually_mean() {
        let lines = [
            "step 10 loss 0.31",
            "worker-1:52:77 [1] NCCL WARN NET/IB : Got async event : port error",
            "[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1043, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800414 milliseconds before timing out.",
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)",
            "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled system error, NCCL version 2.14.3",
        ];
        let found = hints(lines);
        let kinds: Vec<HintKind> = found.iter().map(|h| h.kind).collect();
        // The two NCCL errors mean the same; the first is kept.
        assert_eq!(kinds, [HintKind::Nccl, HintKind::Nccl, HintKind::GpuMemory]);
        assert!(found[0].line.contains("NCCL WARN NET/IB"));
        assert!(
            found[1]
                .meaning
                .starts_with("a collective operation timed out")
        );
    }

    #[test]
    fn ordinary_lines_and_near_misses_give_nothing() {
        let lines = [
            "tephra-testbed: pod ns/p container train started",
            "step 1 loss 2.3",
            "Xid",
            "the word Xid: none",
            "nccl is installed",
        ];
        assert!(hints(lines).is_empty());
        let many: Vec<String> = (0..50)
            .map(|code| format!("NVRM: Xid (PCI:0000:3b:00): {code}, pid=1"))
            .collect();
        assert_eq!(hints(many.iter().map(String::as_str)).len(), MAX_HINTS);
    }
}
