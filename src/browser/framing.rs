//! Length-prefixed JSON frames: Chrome's native messaging, and the same shape on the daemon socket.
//!
//! Architecture invariant: a frame's length is checked against its cap before anything is
//! allocated; an over-long frame is an error, never a partial read.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Chrome kills the port for a larger message toward the extension.
pub const TO_CHROME_MAX: usize = 1024 * 1024;
/// What Circe accepts from the extension (Chrome allows 64 MiB; observations are far smaller).
pub const FROM_CHROME_MAX: usize = 4 * 1024 * 1024;

/// Chrome uses the machine's byte order; the daemon socket always uses little-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Native,
    Little,
}

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("a frame of {size} bytes is over the {max}-byte limit")]
    TooLarge { size: usize, max: usize },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

fn decode_len(bytes: [u8; 4], order: Order) -> usize {
    (match order {
        Order::Native => u32::from_ne_bytes(bytes),
        Order::Little => u32::from_le_bytes(bytes),
    }) as usize
}

fn encode_len(len: usize, order: Order) -> [u8; 4] {
    let len = len as u32;
    match order {
        Order::Native => len.to_ne_bytes(),
        Order::Little => len.to_le_bytes(),
    }
}

/// Read one frame; `Ok(None)` on a clean end of stream before a frame starts.
pub async fn read_frame<R: AsyncRead + Unpin>(
    r: &mut R,
    max: usize,
    order: Order,
) -> Result<Option<Vec<u8>>, FrameError> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let size = decode_len(len, order);
    if size > max {
        return Err(FrameError::TooLarge { size, max });
    }
    let mut body = vec![0u8; size];
    r.read_exact(&mut body).await?;
    Ok(Some(body))
}

pub async fn write_frame<W: AsyncWrite + Unpin>(
    w: &mut W,
    body: &[u8],
    max: usize,
    order: Order,
) -> Result<(), FrameError> {
    if body.len() > max {
        return Err(FrameError::TooLarge {
            size: body.len(),
            max,
        });
    }
    w.write_all(&encode_len(body.len(), order)).await?;
    w.write_all(body).await?;
    w.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    #[test]
    fn round_trip_both_orders() {
        rt().block_on(async {
            for order in [Order::Native, Order::Little] {
                let mut buf = Vec::new();
                write_frame(&mut buf, b"{\"a\":1}", 100, order)
                    .await
                    .unwrap();
                write_frame(&mut buf, b"[]", 100, order).await.unwrap();
                let mut r = &buf[..];
                assert_eq!(
                    read_frame(&mut r, 100, order).await.unwrap().unwrap(),
                    b"{\"a\":1}"
                );
                assert_eq!(
                    read_frame(&mut r, 100, order).await.unwrap().unwrap(),
                    b"[]"
                );
                assert!(read_frame(&mut r, 100, order).await.unwrap().is_none());
            }
        });
    }

    #[test]
    fn over_long_frames_are_refused_before_allocating() {
        rt().block_on(async {
            let mut r: &[u8] = &[0xff, 0xff, 0xff, 0x7f];
            match read_frame(&mut r, 1024, Order::Little).await {
                Err(FrameError::TooLarge { size, max: 1024 }) => assert_eq!(size, 0x7fff_ffff),
                other => panic!("{other:?}"),
            }
            let mut w = Vec::new();
            assert!(write_frame(&mut w, &[b'x'; 11], 10, Order::Native)
                .await
                .is_err());
            assert!(w.is_empty(), "nothing is written for a refused frame");
        });
    }

    #[test]
    fn a_truncated_frame_is_an_error_not_a_short_read() {
        rt().block_on(async {
            let mut r: &[u8] = &[5, 0, 0, 0, b'a', b'b'];
            assert!(matches!(
                read_frame(&mut r, 100, Order::Little).await,
                Err(FrameError::Io(_))
            ));
        });
    }
}
