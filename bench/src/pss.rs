//! The proportional set size of a tree of processes: each page a process maps counts
//! 1/n for the n processes that map it (`/proc/PID/smaps_rollup`), so the sum over a group of
//! processes is the memory the group costs, with shared code and shared files counted once.

use std::collections::BTreeMap;
use std::path::Path;

/// The parent of every process, from `/proc/*/stat`.
fn parents() -> BTreeMap<u32, u32> {
    let mut map = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return map };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // The command name (field 2) is in parentheses and may hold spaces: fields after it.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) {
            map.insert(pid, ppid);
        }
    }
    map
}

/// A process's proportional set size in KiB (`Pss:` of `/proc/PID/smaps_rollup`).
pub fn pss_kb(pid: u32) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    rollup
        .lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// The summed PSS (KiB) of every descendant of `root` whose executable is `exe`, and how many
/// there were. Processes that end while they are read are left out.
pub fn descendants_pss_kb(root: u32, exe: &Path) -> (u64, usize) {
    let parents = parents();
    let descends = |mut pid: u32| {
        for _ in 0..64 {
            match parents.get(&pid) {
                Some(&parent) if parent == root => return true,
                Some(&parent) if parent > 1 => pid = parent,
                _ => return false,
            }
        }
        false
    };
    let (mut total, mut count) = (0, 0);
    for &pid in parents.keys() {
        if !descends(pid) {
            continue;
        }
        if std::fs::read_link(format!("/proc/{pid}/exe")).ok().as_deref() != Some(exe) {
            continue;
        }
        if let Some(kb) = pss_kb(pid) {
            total += kb;
            count += 1;
        }
    }
    (total, count)
}
