//! End to end with the Rust `mysql` crate against the real `kiln` binary: TCP and
//! Unix-socket logins, text and binary (prepared) protocol, both auth plugins, errors.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder, Value};

struct Kiln {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Kiln {
    fn start(tag: &str) -> Kiln {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = std::env::temp_dir().join(format!("kiln-it-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let child = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .arg("--no-defaults")
            .arg(format!("--datadir={}", dir.display()))
            .arg(format!("--port={port}"))
            .arg(format!(
                "--log-error={}",
                std::env::temp_dir()
                    .join(format!("kiln-it-{tag}-{}.log", std::process::id()))
                    .display()
            ))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start kiln");
        let k = Kiln { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if k.connect("root", "").is_ok() {
                return k;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("kiln did not come up");
    }

    fn opts(&self, user: &str, pass: &str) -> OptsBuilder {
        OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(self.port)
            .user(Some(user))
            .pass(Some(pass))
    }

    fn connect(&self, user: &str, pass: &str) -> mysql::Result<Conn> {
        Conn::new(self.opts(user, pass))
    }
}

impl Drop for Kiln {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's pid; no memory is involved.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => break,
                _ if Instant::now() > deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break;
                }
                _ => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn text_and_binary_protocol_and_plugins() {
    let k = Kiln::start("crate");
    let mut root = k.connect("root", "").unwrap();
    let v: String = root.query_first("SELECT VERSION()").unwrap().unwrap();
    assert!(v.starts_with("8.0"), "{v}");
    let row: (i64, String, Option<i64>) = root
        .query_first("SELECT 1 + 1, CONCAT('a', 'b'), NULL")
        .unwrap()
        .unwrap();
    assert_eq!(row, (2, "ab".to_string(), None));

    // Prepared statements: parameters of several types come back as sent.
    let stmt = root.prep("SELECT ?, ?, ?, ?").unwrap();
    let got: Vec<mysql::Row> = root
        .exec(&stmt, (42i64, "text", 2.5f64, Value::NULL))
        .unwrap();
    let r = &got[0];
    assert_eq!(r.get::<i64, _>(0), Some(42));
    assert_eq!(r.get::<String, _>(1).as_deref(), Some("text"));
    assert_eq!(r.get::<f64, _>(2), Some(2.5));
    assert_eq!(r.get::<Option<i64>, _>(3), Some(None));
    root.close(stmt).unwrap();

    // Errors carry MySQL's code.
    let e = root.query_drop("SET @@nosuch = 1").unwrap_err();
    match e {
        mysql::Error::MySqlError(me) => assert_eq!(me.code, 1193),
        other => panic!("unexpected {other:?}"),
    }

    root.query_drop("CREATE USER 'nat'@'%' IDENTIFIED WITH mysql_native_password BY 'n1'")
        .unwrap();
    root.query_drop("CREATE USER 'sha'@'%' IDENTIFIED WITH caching_sha2_password BY 's1'")
        .unwrap();
    let mut nat = k.connect("nat", "n1").unwrap();
    let who: String = nat.query_first("SELECT CURRENT_USER()").unwrap().unwrap();
    assert_eq!(who, "nat@%");
    match k.connect("nat", "wrong") {
        Err(mysql::Error::MySqlError(me)) => assert_eq!(me.code, 1045),
        other => panic!("expected 1045, got {:?}", other.map(|_| ())),
    }

    // caching_sha2 over the Unix socket (secure channel: cleartext full auth), then
    // over TCP from the cache (fast path).
    let sock = k.dir.join("kiln.sock");
    let mut s = Conn::new(
        OptsBuilder::new()
            .socket(Some(sock.to_str().unwrap()))
            .user(Some("sha"))
            .pass(Some("s1")),
    )
    .unwrap();
    let one: i64 = s.query_first("SELECT 1").unwrap().unwrap();
    assert_eq!(one, 1);
    let mut fast = k.connect("sha", "s1").unwrap();
    let who: String = fast.query_first("SELECT CURRENT_USER()").unwrap().unwrap();
    assert_eq!(who, "sha@%");
    assert!(k.connect("sha", "bad").is_err());
}
