//! Annotated phone screenshots: the `screencap` PNG decoded, each interactive control on the
//! screen marked with its box and id (the shared set-of-marks of `deft_protocol::marks`, as on
//! the desktop), and encoded again.

use deft_protocol::marks::{self, RgbImage};
use deft_protocol::observation::{Control, StateFlag};
use image::ImageEncoder as _;

/// `png` with `controls` marked: the new PNG and how many marks it has; `None` when `png`
/// cannot be decoded or encoded.
pub fn annotate(png: &[u8], controls: &[Control]) -> Option<(Vec<u8>, usize)> {
    let decoded = image::load_from_memory_with_format(png, image::ImageFormat::Png).ok()?;
    let rgb = decoded.to_rgb8();
    let mut img = RgbImage {
        width: rgb.width(),
        height: rgb.height(),
        origin: (0, 0),
        pixels: rgb.into_raw(),
    };
    let mut drawn = 0;
    for c in controls {
        let Some(rect) = c.rect else { continue };
        let visible = rect[2] > rect[0]
            && rect[3] > rect[1]
            && rect[2] > 0
            && rect[3] > 0
            && rect[0] < img.width as i32
            && rect[1] < img.height as i32;
        if c.interactive && visible && !c.states.contains(&StateFlag::Offscreen) {
            marks::mark(&mut img, rect, &c.id);
            drawn += 1;
        }
    }
    let mut out = Vec::with_capacity(png.len());
    image::codecs::png::PngEncoder::new_with_quality(
        &mut out,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Adaptive,
    )
    .write_image(
        &img.pixels,
        img.width,
        img.height,
        image::ExtendedColorType::Rgb8,
    )
    .ok()?;
    Some((out, drawn))
}
