//! LOAD DATA LOCAL on the wire: the connection's side of kiln-sql's `LocalInfile`.
//! The statement asks for the file (an 0xFB packet naming it, from kiln-mysql), then
//! pulls the client's packets one at a time until the empty packet that ends the file;
//! kiln-sql inserts each packet's records before the next is read, so a load holds one
//! packet and one partial record in memory.
//!
//! The client sends the whole file whatever happens on the server, so a statement that
//! fails part-way leaves packets unread: `finish` reads and drops them up to the empty
//! packet before the ERR goes out, as MySQL does. A client that disconnects or breaks
//! the sequence mid-file ends the statement with 1158 / 1156 / 1153 (rolled back like
//! any failed statement) and the connection closes.

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_mysql::response::put_local_infile_request;
use kiln_sql::exec::load::LocalInfile;

use super::io::{PacketIo, ReadError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No request sent.
    Idle,
    /// Requested; the client's packets are coming.
    Streaming,
    /// The empty packet arrived.
    Done,
    /// The connection failed mid-file: it cannot be used again.
    Broken,
}

pub struct ClientInfile<'a> {
    io: &'a mut PacketIo,
    /// The client announced CLIENT_LOCAL_FILES.
    enabled: bool,
    state: State,
}

impl<'a> ClientInfile<'a> {
    pub fn new(io: &'a mut PacketIo, enabled: bool) -> ClientInfile<'a> {
        ClientInfile {
            io,
            enabled,
            state: State::Idle,
        }
    }

    /// After the statement: drops what the client still sends of the file. False when
    /// the connection is broken and must close.
    pub fn finish(&mut self) -> bool {
        while self.state == State::Streaming {
            match self.io.read_packet() {
                Ok(p) if p.payload.is_empty() => self.state = State::Done,
                Ok(_) => {}
                Err(_) => self.state = State::Broken,
            }
        }
        self.state != State::Broken
    }

    fn broken(&mut self, e: ReadError) -> KilnError {
        self.state = State::Broken;
        match e {
            ReadError::TooLarge => ErrorKind::ER_NET_PACKET_TOO_LARGE.into(),
            ReadError::OutOfOrder => ErrorKind::ER_NET_PACKETS_OUT_OF_ORDER.into(),
            ReadError::Timeout => ErrorKind::ER_NET_READ_INTERRUPTED.into(),
            _ => ErrorKind::ER_NET_READ_ERROR.into(),
        }
    }
}

impl LocalInfile for ClientInfile<'_> {
    fn enabled(&self) -> bool {
        self.enabled
    }

    fn request(&mut self, file_name: &str) -> Result<()> {
        debug_assert_eq!(self.state, State::Idle, "one request per statement");
        let s = self.io.begin();
        put_local_infile_request(&mut self.io.wbuf, file_name.as_bytes());
        self.io.finish(s);
        if self.io.flush().is_err() {
            self.state = State::Broken;
            return Err(ErrorKind::ER_NET_ERROR_ON_WRITE.into());
        }
        self.state = State::Streaming;
        Ok(())
    }

    fn read(&mut self) -> Result<Option<Vec<u8>>> {
        if self.state != State::Streaming {
            return Ok(None);
        }
        match self.io.read_packet() {
            Ok(p) if p.payload.is_empty() => {
                self.state = State::Done;
                Ok(None)
            }
            Ok(p) => Ok(Some(p.payload.to_vec())),
            Err(e) => Err(self.broken(e)),
        }
    }
}
