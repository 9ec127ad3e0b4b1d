//! `kiln`: start-up and shutdown of the server. Order matters and each step logs:
//! options → error log → datadir (init or check) → lock → TLS/RSA material → accounts
//! → listeners → pid file → "ready for connections" → wait for SHUTDOWN or a signal →
//! stop listeners → close connections → remove socket and pid files → exit 0.

use std::path::PathBuf;
use std::process::ExitCode;

use kiln_server::accounts::Accounts;
use kiln_server::server::{Server, Settings};
use kiln_server::vars::Globals;
use kiln_server::{datadir, errlog, listener, signals, tls};
use kiln_sql::value::Value;

const VERSION: &str = "8.0.40-kiln";

/// mimalloc: a statement allocates and frees many small values (rows, strings, plan
/// nodes) on one thread; glibc malloc's arena locks and chunk coalescing cost ~13% of
/// the server's CPU under sysbench oltp_read_only (perf, 8 threads).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    signals::block_shutdown_signals();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            errlog::error(&msg);
            errlog::error("Aborting");
            if errlog::is_file() {
                eprintln!("kiln: [ERROR] {msg}");
            }
            ExitCode::from(1)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let globals = Globals::new();
    let opts = kiln_server::config::parse(args)?;
    let mut option_warnings = opts.warnings.clone();
    for s in &opts.settings {
        let warnings = globals.apply_option(s.var, &s.value).map_err(|e| {
            format!(
                "Error while setting value '{}' to '{}' ({}): {}",
                display_option(&s.value),
                s.var.name,
                s.origin,
                e.message
            )
        })?;
        for w in warnings {
            option_warnings.push(format!(
                "option '{}' ({}): {}",
                s.var.name, s.origin, w.message
            ));
        }
    }
    // back_log as MySQL 8.0 sizes it when not given: max_connections (WL#9704).
    if !opts.settings.iter().any(|s| s.var.name == "back_log") {
        let max = globals.u64("max_connections").unwrap_or(151);
        globals.set_internal("back_log", Value::Int(max.clamp(1, 65535) as i64));
    }
    if opts.version {
        println!(
            "kiln  Ver {VERSION} for Linux on {} (kiln)",
            std::env::consts::ARCH
        );
        return Ok(());
    }
    if opts.help {
        if opts.verbose {
            print!(
                "{}",
                kiln_server::config::verbose_help(VERSION, &globals.list())
            );
        } else {
            print!("{}", kiln_server::config::short_help(VERSION));
        }
        return Ok(());
    }
    let datadir = PathBuf::from(
        globals
            .string("datadir")
            .unwrap_or_else(|| "./kiln-data".into()),
    );
    if let Some(log) = globals
        .string("log_error")
        .filter(|s| !s.is_empty() && s != "stderr")
    {
        errlog::open(std::path::Path::new(&log))
            .map_err(|e| format!("cannot open error log '{log}': {e}"))?;
    }
    errlog::system(&format!(
        "kiln {VERSION} starting as process {}",
        std::process::id()
    ));
    for f in &opts.files {
        errlog::note(&format!("Read options from '{}'", f.display()));
    }
    for w in &option_warnings {
        errlog::warning(w);
    }

    let log_file: Vec<PathBuf> = globals
        .string("log_error")
        .filter(|s| !s.is_empty() && s != "stderr")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    let fresh = datadir::needs_init(&datadir, &log_file)?;
    if fresh {
        errlog::system(&format!(
            "Initializing data directory '{}'",
            datadir.display()
        ));
        datadir::create(&datadir)?;
    } else {
        datadir::check_format(&datadir)?;
    }
    let datadir = datadir
        .canonicalize()
        .map_err(|e| format!("cannot resolve datadir: {e}"))?;
    let _lock = datadir::lock(&datadir)?;
    if fresh {
        let plugin = globals
            .string("default_authentication_plugin")
            .unwrap_or_else(|| "caching_sha2_password".into());
        Accounts::initialize(&datadir, &plugin)?;
        errlog::warning(
            "root@localhost is created with an empty password ! Please consider switching off the --initialize-insecure option.",
        );
    }
    let ssl_cert = globals
        .string("ssl_cert")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from);
    let ssl_key = globals
        .string("ssl_key")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from);
    let tls = match tls::load_or_create(&datadir, ssl_cert.as_deref(), ssl_key.as_deref()) {
        Ok(t) => {
            globals.set_internal("have_ssl", Value::Str("YES".into()));
            Some(t)
        }
        Err(e) => {
            errlog::warning(&format!("TLS is disabled: {e}"));
            globals.set_internal("have_ssl", Value::Str("DISABLED".into()));
            None
        }
    };
    let accounts = Accounts::load(&datadir)?;
    let engine = kiln_server::storage::open(&datadir, &globals)?;
    let trx = kiln_server::storage::open_trx(&engine, &globals)?;
    let dict = kiln_sql::dict::Dictionary::open(engine.clone(), trx.clone())
        .map_err(|e| format!("cannot open the data dictionary: {}", e.message))?;

    let port = globals.u64("port").unwrap_or(3306) as u16;
    let bind_address = globals
        .string("bind_address")
        .unwrap_or_else(|| "127.0.0.1".into());
    let socket = PathBuf::from(
        globals
            .string("socket")
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| datadir.join("kiln.sock").display().to_string()),
    );
    let pid_file = PathBuf::from(
        globals
            .string("pid_file")
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| datadir.join("kiln.pid").display().to_string()),
    );
    let skip_networking = globals.bool("skip_networking").unwrap_or(false);
    globals.set_internal("port", Value::Int(port as i64));
    globals.set_internal("socket", Value::Str(socket.display().to_string()));
    globals.set_internal("datadir", Value::Str(format!("{}/", datadir.display())));
    globals.set_internal("pid_file", Value::Str(pid_file.display().to_string()));
    globals.set_internal("version", Value::Str(VERSION.into()));
    globals.set_internal("hostname", Value::Str(hostname()));

    let settings = Settings {
        datadir: datadir.clone(),
        port,
        bind_address: bind_address.clone(),
        socket: socket.clone(),
        pid_file: pid_file.clone(),
        skip_networking,
        version: VERSION.into(),
    };
    let tcp = if skip_networking {
        None
    } else {
        Some(listener::bind_tcp(&bind_address, port).map_err(|e| {
            format!("Can't start server: Bind on TCP/IP port {port} ({bind_address}): {e}. Is another server already running on this port?")
        })?)
    };
    let extra_port = globals.u64("extra_port").unwrap_or(0) as u16;
    let extra = if skip_networking || extra_port == 0 {
        None
    } else {
        Some(listener::bind_tcp(&bind_address, extra_port).map_err(|e| {
            format!("Can't start server: Bind on TCP/IP port {extra_port} ({bind_address}): {e}. Is another server already running on this port?")
        })?)
    };
    let unix = listener::bind_unix(&socket).map_err(|e| {
        format!(
            "Can't start server: cannot bind unix socket '{}': {e}",
            socket.display()
        )
    })?;
    datadir::write_pid_file(&pid_file)?;

    let server = kiln_server::install_server(Server::new(
        settings,
        globals,
        accounts,
        tls,
        Some(engine.clone()),
        Some(trx.clone()),
        Some(dict),
    ));
    kiln_server::system_tables::ensure(server)?;
    if server.globals.string("thread_handling").as_deref() == Some("pool-of-threads") {
        let size = match server.globals.u64("thread_pool_size").unwrap_or(0) {
            0 => kiln_server::pool::cpu_count(),
            n => n as usize,
        };
        server
            .globals
            .set_internal("thread_pool_size", Value::Int(size as i64));
        let pool = kiln_server::pool::ThreadPool::start(server, size)?;
        let _ = server.pool.set(pool);
        errlog::system(&format!("thread pool: {size} thread groups"));
    }
    let back_log = server.globals.u64("back_log").unwrap_or(151);
    if let Some(max) = listener::somaxconn().filter(|&m| m < back_log) {
        errlog::warning(&format!(
            "back_log is {back_log} but the kernel caps listen queues at {max} (net.core.somaxconn); \
             a burst of more than {max} connection attempts may be refused (EAGAIN on a Unix socket)"
        ));
    }
    let mut threads = Vec::new();
    if let Some(l) = tcp {
        listener::set_backlog(std::os::fd::AsRawFd::as_raw_fd(&l), back_log);
        threads.push(
            std::thread::Builder::new()
                .name("kiln-tcp".into())
                .spawn(move || listener::run_tcp(server, l, false))
                .map_err(|e| e.to_string())?,
        );
    }
    if let Some(l) = extra {
        threads.push(
            std::thread::Builder::new()
                .name("kiln-extra-port".into())
                .spawn(move || listener::run_tcp(server, l, true))
                .map_err(|e| e.to_string())?,
        );
    }
    listener::set_backlog(std::os::fd::AsRawFd::as_raw_fd(&unix), back_log);
    threads.push(
        std::thread::Builder::new()
            .name("kiln-unix".into())
            .spawn(move || listener::run_unix(server, unix))
            .map_err(|e| e.to_string())?,
    );
    if let Some(c) = kiln_server::hs::config(&server.globals) {
        let hs = kiln_server::hs::start(server, &c)?;
        errlog::system(&format!(
            "HandlerSocket listening on {}: read port {} ({} threads), write port {} ({} threads)",
            if c.address.is_empty() {
                "*"
            } else {
                &c.address
            },
            hs.ports.0,
            if hs.ports.0 == 0 { 0 } else { c.threads },
            hs.ports.1,
            if hs.ports.1 == 0 { 0 } else { c.threads_wr },
        ));
        *server.hs.lock() = Some(hs);
    }
    std::thread::Builder::new()
        .name("kiln-signals".into())
        .spawn(move || {
            let why = signals::wait_for_shutdown_signal();
            server.begin_shutdown(why);
        })
        .map_err(|e| e.to_string())?;
    errlog::system(&format!(
        "ready for connections. Version: '{VERSION}'  socket: '{}'  port: {}  kiln",
        socket.display(),
        if skip_networking { 0 } else { port }
    ));

    server.wait_for_shutdown();
    for t in threads {
        let _ = t.join();
    }
    if let Some(mut hs) = server.hs.lock().take() {
        hs.stop();
    }
    let left = server.drain(std::time::Duration::from_secs(10));
    if left > 0 {
        errlog::warning(&format!(
            "{left} connection(s) still open at shutdown; exiting anyway"
        ));
    }
    if let Some(pool) = server.pool.get() {
        pool.stop();
    }
    kiln_server::storage::shutdown(&engine, &trx);
    let _ = std::fs::remove_file(&socket);
    let _ = std::fs::remove_file(&pid_file);
    errlog::system(&format!("kiln: Shutdown complete (kiln {VERSION})."));
    Ok(())
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its full length; gethostname NUL-terminates on success.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    if rc != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

fn display_option(v: &Value) -> String {
    v.to_string_lossy().unwrap_or_default()
}
