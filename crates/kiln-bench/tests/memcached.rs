//! End-to-end runs of the `kiln-bench` binary: against a real memcached started on a
//! free port (skipped with a message when the `memcached` binary is not installed),
//! and against a port nobody listens on. No timing is asserted.

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const BENCH: &str = env!("CARGO_BIN_EXE_kiln-bench");

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn find_memcached() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/local/bin")])
        .map(|dir| dir.join("memcached"))
        .find(|p| p.is_file())
}

/// A memcached child process, killed when dropped.
struct Memcached {
    child: Child,
    port: u16,
}

impl Memcached {
    /// Starts memcached on a free loopback port, or `None` when it is not installed.
    /// The tests of this file run in parallel, and a port found free can be taken by
    /// another test's memcached before this one binds it: the loser exits, and the
    /// connect below would reach the other test's server (reset when that test ends).
    /// So a start whose child has exited once the port answers is tried again.
    fn start() -> Option<Memcached> {
        for _ in 0..5 {
            let mut m = Self::start_once()?;
            thread::sleep(Duration::from_millis(100));
            if m.child.try_wait().unwrap().is_none() {
                return Some(m);
            }
            m.stop();
        }
        panic!("memcached kept exiting after start (port clashes?)");
    }

    fn start_once() -> Option<Memcached> {
        let Some(bin) = find_memcached() else {
            eprintln!("SKIPPED: no memcached binary (apt-get install -y memcached)");
            return None;
        };
        let port = free_port();
        // `-u root` is needed when the tests run as root and ignored otherwise.
        let child = Command::new(bin)
            .args([
                "-p",
                &port.to_string(),
                "-U",
                "0",
                "-l",
                "127.0.0.1",
                "-u",
                "root",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start memcached");
        let mut m = Memcached { child, port };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = m.child.try_wait().unwrap() {
                let mut err = String::new();
                m.child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut err)
                    .unwrap();
                if err.contains("Address already in use") {
                    return Some(m); // the caller sees the exit and tries another port
                }
                panic!("memcached exited ({status}): {err}");
            }
            assert!(
                Instant::now() < deadline,
                "memcached did not start listening"
            );
            thread::sleep(Duration::from_millis(20));
        }
        Some(m)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Memcached {
    fn drop(&mut self) {
        self.stop();
    }
}

fn bench(args: &[&str]) -> Output {
    Command::new(BENCH)
        .args(args)
        .output()
        .expect("run kiln-bench")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The raw value of `"name":` in a flat-enough JSON object.
fn json_field<'a>(json: &'a str, name: &str) -> &'a str {
    let key = format!("\"{name}\":");
    let at = json
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {json}"))
        + key.len();
    let rest = &json[at..];
    &rest[..rest.find([',', '}']).unwrap()]
}

fn json_u64(json: &str, name: &str) -> u64 {
    json_field(json, name).parse().unwrap()
}

#[test]
fn load_then_pipelined_reads_hit_every_key() {
    let Some(mc) = Memcached::start() else { return };
    let port = mc.port.to_string();
    let out = bench(&["memcached-load", "--port", &port, "--keys", "1000"]);
    assert!(out.status.success(), "load failed: {}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("loaded 1000 keys"),
        "{}",
        text(&out.stdout)
    );

    let out = bench(&[
        "memcached",
        "--port",
        &port,
        "--keys",
        "1000",
        "--connections",
        "2",
        "--pipeline",
        "4",
        "--duration",
        "2",
        "--warmup",
        "0",
        "--json",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "run failed: {}", text(&out.stderr));
    let json = stdout.trim();
    assert!(json.starts_with('{') && json.ends_with('}'), "{json}");
    assert!(json_u64(json, "ops") > 0, "{json}");
    assert_eq!(json_u64(json, "errors"), 0, "{json}");
    assert_eq!(json_u64(json, "misses"), 0, "{json}");
    assert_eq!(json_u64(json, "connections"), 2);
    assert_eq!(json_u64(json, "pipeline"), 4);
    assert_eq!(json_field(json, "latency_unit"), "\"batch\"");
    // Progress lines went to stderr.
    assert!(text(&out.stderr).contains("ops/s"), "{}", text(&out.stderr));
}

#[test]
fn mixed_zipfian_closed_loop_writes_are_stored() {
    let Some(mc) = Memcached::start() else { return };
    let port = mc.port.to_string();
    let out = bench(&[
        "memcached",
        "--port",
        &port,
        "--keys",
        "500",
        "--connections",
        "2",
        "--duration",
        "1",
        "--warmup",
        "1",
        "--dist",
        "zipfian",
        "--write-ratio",
        "0.5",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "run failed: {}", text(&out.stderr));
    // Nothing was loaded, so reads may miss, but every set must be STORED.
    assert!(stdout.contains("errors       0\n"), "{stdout}");
    assert!(stdout.contains("per request"), "{stdout}");
    let writes: u64 = stdout
        .split("writes ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no write count in {stdout}"));
    assert!(writes > 0, "{stdout}");
}

#[test]
fn server_gone_mid_run_is_fatal() {
    let Some(mut mc) = Memcached::start() else {
        return;
    };
    let port = mc.port.to_string();
    let run = Command::new(BENCH)
        .args([
            "memcached",
            "--port",
            &port,
            "--keys",
            "100",
            "--connections",
            "2",
            "--duration",
            "60",
            "--warmup",
            "0",
            "--timeout",
            "5",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    thread::sleep(Duration::from_millis(1500));
    mc.stop();
    let out = run.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("kiln-bench: error: connection"), "{stderr}");
}

#[test]
fn connection_refused_is_a_clear_fatal_error() {
    let port = free_port().to_string(); // nothing listens there any more
    for mode in ["memcached", "hs"] {
        let out = bench(&[mode, "--port", &port, "--duration", "1"]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{mode}: {stderr}");
        assert!(
            stderr.contains("cannot connect to 127.0.0.1:"),
            "{mode}: {stderr}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = bench(&["memcached-load", "--port", &port, "--keys", "10"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot connect"));
}

#[test]
fn usage_errors_exit_2() {
    let out = bench(&["memcached", "--write-ratio", "2"]);
    assert_eq!(out.status.code(), Some(2));
    let out = bench(&["--help"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("memcached-load"));
}
