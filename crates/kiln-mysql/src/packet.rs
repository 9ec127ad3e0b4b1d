//! Packet framing: the 4-byte header (3-byte little-endian payload length + 1-byte
//! sequence id), splitting of payloads of 16 MiB - 1 bytes or more into several
//! physical packets, and joining them back, bounded by `max_allowed_packet`.
//!
//! ```text
//!  0      3     4                      4+len
//!  +------+-----+-----------------------+
//!  | len  | seq | payload (len bytes)   |   len = 0xFFFFFF means "more follows";
//!  +------+-----+-----------------------+   a payload that is an exact multiple of
//!                                           0xFFFFFF ends with an empty packet.
//! ```
//!
//! Invariant: sequence ids increase by one (mod 256) from packet to packet within one
//! command exchange; the client starts each command at 0.

use bytes::{Buf, BufMut, BytesMut};

/// Largest payload of one physical packet.
pub const MAX_FRAME_PAYLOAD_BYTES: usize = 0xFF_FFFF;
/// Header size.
pub const HEADER_BYTES: usize = 4;

/// One logical packet (physical frames joined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// Sequence id of the first physical frame.
    pub seq: u8,
    /// Sequence id of the last physical frame (the next packet continues from it).
    pub last_seq: u8,
    pub payload: BytesMut,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketError {
    /// The logical packet exceeds `max_allowed_packet` (ER_NET_PACKET_TOO_LARGE).
    TooLarge,
    /// Frames of one logical packet did not carry consecutive sequence ids.
    OutOfOrder,
}

/// Incremental decoder. Keeps partial state so a logical packet split across many
/// reads is assembled without re-scanning.
#[derive(Debug)]
pub struct PacketDecoder {
    max_packet_bytes: usize,
    partial: Option<Packet>,
}

impl PacketDecoder {
    pub fn new(max_packet_bytes: usize) -> PacketDecoder {
        PacketDecoder {
            max_packet_bytes,
            partial: None,
        }
    }

    pub fn set_max_packet_bytes(&mut self, max_packet_bytes: usize) {
        self.max_packet_bytes = max_packet_bytes;
    }

    pub fn max_packet_bytes(&self) -> usize {
        self.max_packet_bytes
    }

    /// Whether a logical packet is partly assembled (its first frame was consumed).
    pub fn in_progress(&self) -> bool {
        self.partial.is_some()
    }

    /// Bytes the decoder still needs before it can make progress (a hint for readers).
    pub fn needs_bytes(&self, buf: &BytesMut) -> usize {
        if buf.len() < HEADER_BYTES {
            return HEADER_BYTES - buf.len();
        }
        let len = u32::from_le_bytes([buf[0], buf[1], buf[2], 0]) as usize;
        (HEADER_BYTES + len).saturating_sub(buf.len())
    }

    /// Takes one complete logical packet off the front of `buf`, if there is one.
    /// Oversize packets are refused as soon as their headers announce the size, before
    /// their payload is buffered.
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Packet>, PacketError> {
        loop {
            if buf.len() < HEADER_BYTES {
                return Ok(None);
            }
            let len = u32::from_le_bytes([buf[0], buf[1], buf[2], 0]) as usize;
            let seq = buf[3];
            let so_far = self.partial.as_ref().map_or(0, |p| p.payload.len());
            if so_far + len > self.max_packet_bytes {
                return Err(PacketError::TooLarge);
            }
            if let Some(p) = &self.partial
                && seq != p.last_seq.wrapping_add(1)
            {
                return Err(PacketError::OutOfOrder);
            }
            if buf.len() < HEADER_BYTES + len {
                buf.reserve(HEADER_BYTES + len - buf.len());
                return Ok(None);
            }
            buf.advance(HEADER_BYTES);
            let frame = buf.split_to(len);
            let packet = match self.partial.take() {
                None => Packet {
                    seq,
                    last_seq: seq,
                    payload: frame,
                },
                Some(mut p) => {
                    p.payload.unsplit(frame);
                    p.last_seq = seq;
                    p
                }
            };
            if len == MAX_FRAME_PAYLOAD_BYTES {
                self.partial = Some(packet);
                continue;
            }
            return Ok(Some(packet));
        }
    }
}

/// Appends `payload` as one logical packet starting at sequence id `*seq`, splitting
/// it into frames as needed; `*seq` is left at the next id to use.
pub fn write_packet(out: &mut BytesMut, seq: &mut u8, payload: &[u8]) {
    let mut rest = payload;
    loop {
        let n = rest.len().min(MAX_FRAME_PAYLOAD_BYTES);
        out.reserve(HEADER_BYTES + n);
        out.put_uint_le(n as u64, 3);
        out.put_u8(*seq);
        *seq = seq.wrapping_add(1);
        out.put_slice(&rest[..n]);
        rest = &rest[n..];
        if n < MAX_FRAME_PAYLOAD_BYTES {
            return;
        }
    }
}

/// Builds packets in place in an output buffer: `begin` reserves a header, the caller
/// appends the payload, `finish` fills the header (splitting if the payload turned out
/// to be 16 MiB or more). Avoids a copy per packet on the result-set hot path.
#[derive(Debug, Clone, Copy)]
pub struct PacketStart(usize);

pub fn begin_packet(out: &mut BytesMut) -> PacketStart {
    let start = out.len();
    out.put_u32_le(0);
    PacketStart(start)
}

pub fn finish_packet(out: &mut BytesMut, start: PacketStart, seq: &mut u8) {
    let start = start.0;
    let len = out.len() - start - HEADER_BYTES;
    if len < MAX_FRAME_PAYLOAD_BYTES {
        let hdr = (len as u32).to_le_bytes();
        out[start] = hdr[0];
        out[start + 1] = hdr[1];
        out[start + 2] = hdr[2];
        out[start + 3] = *seq;
        *seq = seq.wrapping_add(1);
        return;
    }
    // Rare: re-frame the oversized payload.
    let payload = out.split_off(start + HEADER_BYTES);
    out.truncate(start);
    write_packet(out, seq, &payload);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(payload: &[u8]) -> BytesMut {
        let mut out = BytesMut::new();
        let mut seq = 0;
        write_packet(&mut out, &mut seq, payload);
        out
    }

    #[test]
    fn small_packet_round_trip() {
        let mut buf = frames(b"\x03SELECT 1");
        let mut d = PacketDecoder::new(1 << 20);
        let p = d.decode(&mut buf).unwrap().unwrap();
        assert_eq!(&p.payload[..], b"\x03SELECT 1");
        assert_eq!((p.seq, p.last_seq), (0, 0));
        assert!(buf.is_empty());
    }

    #[test]
    fn exact_multiple_of_frame_size_ends_with_empty_frame() {
        let payload = vec![7u8; MAX_FRAME_PAYLOAD_BYTES];
        let mut buf = frames(&payload);
        assert_eq!(buf.len(), 2 * HEADER_BYTES + MAX_FRAME_PAYLOAD_BYTES);
        let mut d = PacketDecoder::new(1 << 26);
        let p = d.decode(&mut buf).unwrap().unwrap();
        assert_eq!(p.payload.len(), MAX_FRAME_PAYLOAD_BYTES);
        assert_eq!((p.seq, p.last_seq), (0, 1));
    }

    #[test]
    fn large_packet_split_and_joined_byte_by_byte() {
        let payload: Vec<u8> = (0..(MAX_FRAME_PAYLOAD_BYTES + 1000))
            .map(|i| i as u8)
            .collect();
        let all = frames(&payload);
        let mut d = PacketDecoder::new(1 << 26);
        let mut buf = BytesMut::new();
        let mut got = None;
        for chunk in all.chunks(1 << 16) {
            buf.extend_from_slice(chunk);
            if let Some(p) = d.decode(&mut buf).unwrap() {
                got = Some(p);
            }
        }
        assert_eq!(&got.unwrap().payload[..], &payload[..]);
    }

    #[test]
    fn oversize_refused_from_header_alone() {
        let mut buf = BytesMut::from(&[0xFF, 0xFF, 0x0F, 0][..]);
        let mut d = PacketDecoder::new(1024);
        assert_eq!(d.decode(&mut buf), Err(PacketError::TooLarge));
    }

    #[test]
    fn out_of_order_continuation() {
        let mut buf = BytesMut::new();
        buf.put_uint_le(MAX_FRAME_PAYLOAD_BYTES as u64, 3);
        buf.put_u8(0);
        buf.put_slice(&vec![0u8; MAX_FRAME_PAYLOAD_BYTES]);
        buf.put_uint_le(1, 3);
        buf.put_u8(5);
        buf.put_u8(1);
        let mut d = PacketDecoder::new(1 << 26);
        assert_eq!(d.decode(&mut buf), Err(PacketError::OutOfOrder));
    }

    #[test]
    fn in_place_builder_matches_write_packet() {
        let mut a = BytesMut::new();
        let mut seq = 3;
        let s = begin_packet(&mut a);
        a.put_slice(b"hello");
        finish_packet(&mut a, s, &mut seq);
        assert_eq!(seq, 4);
        let mut b = BytesMut::new();
        let mut seq2 = 3;
        write_packet(&mut b, &mut seq2, b"hello");
        assert_eq!(a, b);
    }
}
