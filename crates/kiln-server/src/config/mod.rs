//! Startup options (command line and my.cnf).
