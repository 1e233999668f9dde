//! Where the parts of an MPDU lie in its bytes: what CCM* authenticates
//! in the clear and what it encrypts, readable while the private payload
//! is still encrypted.

use super::beacon::BeaconPayload;
use super::header::{Address, Frame, FrameType, FrameVersion};
use crate::ie::{HeaderIe, Termination};
use crate::{need, Error, Result};

/// The cleartext structure of an MPDU (without FCS), readable even while the
/// private payload is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Frame type.
    pub frame_type: FrameType,
    /// Frame version.
    pub version: FrameVersion,
    /// Offset of the auxiliary security header, if security is enabled.
    pub aux_offset: Option<usize>,
    /// End of the MAC header: addressing, auxiliary security header and
    /// header IEs (incl. the header termination IE).
    pub header_len: usize,
    /// Length of the open (authenticated, never encrypted) payload after the
    /// header: for 2003/2006 frames the command identifier of a MAC command,
    /// or a beacon's superframe/GTS/pending fields. 2015 frames have no open
    /// payload: their Command ID and payload IEs are private (encrypted), as
    /// Wireshark expects.
    pub open_payload_len: usize,
    /// Source address (needed for the nonce).
    pub src_addr: Address,
}

impl Layout {
    /// Read the cleartext structure of an MPDU (without FCS and without MIC:
    /// a plaintext frame, or a secured one before [`crate::ccm_star::secure_frame`]).
    pub fn parse(buf: &[u8]) -> Result<Layout> {
        Self::parse_inner(buf, false)
    }

    /// Read the cleartext structure of a secured MPDU as received (without
    /// FCS, with its MIC at the end): the MIC is not mistaken for IEs.
    pub fn parse_secured(buf: &[u8]) -> Result<Layout> {
        Self::parse_inner(buf, true)
    }

    fn parse_inner(buf: &[u8], with_mic: bool) -> Result<Layout> {
        let f = Frame::new_checked(buf)?;
        let (security, mut off) = f.security_and_end()?;
        let mic = match (with_mic, &security) {
            (true, Some(s)) => s.level.mic_len(),
            _ => 0,
        };
        if off + mic > buf.len() {
            return Err(Error::Truncated {
                what: "MIC",
                need: off + mic,
                have: buf.len(),
            });
        }
        let buf = &buf[..buf.len() - mic];
        let mut payload_ies = false;
        if f.ie_present() {
            let (_, n, t) = HeaderIe::parse_list(&buf[off..])?;
            off += n;
            payload_ies = t == Termination::Ht1;
        }
        let open = if payload_ies {
            0
        } else {
            match (f.frame_type(), f.frame_version()) {
                (FrameType::MacCommand, FrameVersion::V2003 | FrameVersion::V2006) => {
                    need(&buf[off..], 1, "command frame identifier")?;
                    1
                }
                (FrameType::Beacon, FrameVersion::V2003 | FrameVersion::V2006) => {
                    BeaconPayload::new_checked(&buf[off..])?.open_len()
                }
                _ => 0,
            }
        };
        Ok(Layout {
            frame_type: f.frame_type(),
            version: f.frame_version(),
            aux_offset: security.map(|_| f.addressing_len()),
            header_len: off,
            open_payload_len: open,
            src_addr: f.src_addr(),
        })
    }
}
