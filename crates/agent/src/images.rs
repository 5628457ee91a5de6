//! Images for the model: decoded, downscaled to a maximum width and re-encoded as JPEG, so
//! screenshots cost predictable tokens. Coordinates the model gives are window fractions, so
//! scaling never shifts a click.

use base64::Engine as _;

/// An image ready for an `image_url` part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelImage {
    /// `data:image/jpeg;base64,…`.
    pub data_uri: String,
    /// Width after scaling.
    pub width: u32,
    /// Height after scaling.
    pub height: u32,
}

/// Decodes `bytes` (PNG or JPEG), scales it to at most `max_width` wide and encodes it as JPEG.
pub fn downscale_for_model(
    bytes: &[u8],
    max_width: u32,
    quality: u8,
) -> Result<ModelImage, String> {
    let (jpeg, width, height) = downscale_to_jpeg(bytes, max_width, quality)?;
    Ok(ModelImage {
        data_uri: format!(
            "data:image/jpeg;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&jpeg)
        ),
        width,
        height,
    })
}

/// Decodes `bytes` (PNG or JPEG), scales it to at most `max_width` wide and encodes it as JPEG:
/// the JPEG bytes, width and height (the console's live view uses this too).
pub fn downscale_to_jpeg(
    bytes: &[u8],
    max_width: u32,
    quality: u8,
) -> Result<(Vec<u8>, u32, u32), String> {
    let img =
        image::load_from_memory(bytes).map_err(|e| format!("cannot decode the image: {e}"))?;
    let mut rgb = img.into_rgb8();
    if rgb.width() > max_width && max_width > 0 {
        let h = ((rgb.height() as u64 * max_width as u64) / rgb.width() as u64).max(1) as u32;
        // Area averaging: fast, and sharp enough for text on screenshots.
        rgb = image::imageops::thumbnail(&rgb, max_width, h);
    }
    let (w, h) = (rgb.width(), rgb.height());
    let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
        return Err(format!(
            "the image is too large to encode as JPEG ({w}×{h})"
        ));
    };
    let mut out = Vec::with_capacity(rgb.len() / 8);
    jpeg_encoder::Encoder::new(&mut out, quality.clamp(1, 100))
        .encode(rgb.as_raw(), w16, h16, jpeg_encoder::ColorType::Rgb)
        .map_err(|e| format!("cannot encode the image: {e}"))?;
    Ok((out, w, h))
}

pub use deft_protocol::envelope::decode_data_uri;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_images_are_scaled_and_become_jpeg() {
        let img = image::RgbImage::from_fn(2560, 2048, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 80])
        });
        let mut png = Vec::new();
        image::DynamicImage::ImageRgb8(img)
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        let m = downscale_for_model(&png, 1280, 80).unwrap();
        assert_eq!((m.width, m.height), (1280, 1024));
        assert!(m.data_uri.starts_with("data:image/jpeg;base64,/9j/"));
        let (mime, bytes) = decode_data_uri(&m.data_uri).unwrap();
        assert_eq!(mime, "image/jpeg");
        assert_eq!(image::load_from_memory(&bytes).unwrap().width(), 1280);
        assert!(
            downscale_for_model(b"not an image", 1280, 80)
                .unwrap_err()
                .starts_with("cannot decode")
        );
    }
}
