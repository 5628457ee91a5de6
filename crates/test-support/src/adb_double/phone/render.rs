//! `screencap -p` of the simulated phone: the screen's views drawn as boxes at the real screen
//! size — edits white, clickable views outlined in blue, other views in grey, text as dark bars
//! (no font) — or all black while the screen is off; a PNG written with fast compression, so a
//! full-size frame stays cheap even in a debug build.

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, Rgb, RgbImage};

use super::view::{Rect, View};

const BACKGROUND: Rgb<u8> = Rgb([0xf2, 0xf2, 0xf5]);
const EDIT: Rgb<u8> = Rgb([0xff, 0xff, 0xff]);
const EDIT_LINE: Rgb<u8> = Rgb([0x30, 0x30, 0x30]);
const CLICKABLE: Rgb<u8> = Rgb([0x1a, 0x73, 0xe8]);
const OUTLINE: Rgb<u8> = Rgb([0xc8, 0xc8, 0xd0]);
const TEXT: Rgb<u8> = Rgb([0x20, 0x21, 0x24]);

/// The PNG of a `width`×`height` screen showing `screen` (black when `None`: the screen is
/// off).
pub(crate) fn render(width: u32, height: u32, screen: Option<&View>) -> Vec<u8> {
    let mut image = RgbImage::new(width, height); // black
    if let Some(root) = screen {
        fill(&mut image, root.bounds, BACKGROUND);
        for (_, view) in root.walk() {
            draw(&mut image, view);
        }
    }
    let mut png = Vec::new();
    PngEncoder::new_with_quality(&mut png, CompressionType::Fast, FilterType::Up)
        .write_image(
            image.as_raw(),
            width,
            height,
            image::ExtendedColorType::Rgb8,
        )
        .unwrap_or_else(|e| panic!("encoding the phone's screen: {e}"));
    png
}

fn draw(image: &mut RgbImage, view: &View) {
    let b = view.bounds;
    if b.is_empty() {
        return;
    }
    if view.class.ends_with("EditText") {
        fill(image, b, EDIT);
        outline(image, b, EDIT_LINE, 3);
    } else if view.clickable {
        outline(image, b, CLICKABLE, 4);
    } else {
        outline(image, b, OUTLINE, 1);
    }
    let words = if view.text.is_empty() {
        &view.desc
    } else {
        &view.text
    };
    if !words.is_empty() {
        let height = ((b.bottom - b.top) / 3).clamp(2, 40);
        let width = (words.chars().count() as i32 * 18).min(b.right - b.left - 16);
        let top = b.top + (b.bottom - b.top - height) / 2;
        let bar = Rect::new(b.left + 8, top, b.left + 8 + width, top + height);
        fill(image, bar, TEXT);
    }
}

fn outline(image: &mut RgbImage, b: Rect, colour: Rgb<u8>, width: i32) {
    fill(
        image,
        Rect::new(b.left, b.top, b.right, b.top + width),
        colour,
    );
    fill(
        image,
        Rect::new(b.left, b.bottom - width, b.right, b.bottom),
        colour,
    );
    fill(
        image,
        Rect::new(b.left, b.top, b.left + width, b.bottom),
        colour,
    );
    fill(
        image,
        Rect::new(b.right - width, b.top, b.right, b.bottom),
        colour,
    );
}

/// Paints `r` (clipped to the image).
fn fill(image: &mut RgbImage, r: Rect, colour: Rgb<u8>) {
    let (w, h) = (image.width() as i32, image.height() as i32);
    let r = r.clipped(&Rect::new(0, 0, w, h));
    if r.is_empty() {
        return;
    }
    let stride = w as usize * 3;
    let pixels: &mut [u8] = image;
    let run: Vec<u8> = colour.0.repeat((r.right - r.left) as usize);
    for y in r.top..r.bottom {
        let start = y as usize * stride + r.left as usize * 3;
        pixels[start..start + run.len()].copy_from_slice(&run);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screen_is_drawn_at_its_size_and_a_dark_one_is_black() {
        let edit = View::edit("p", "p:id/e", "", "hint", Rect::new(10, 10, 90, 40));
        let root =
            View::new("android.widget.FrameLayout", "p", Rect::new(0, 0, 100, 200)).child(edit);
        let png = render(100, 200, Some(&root));
        let image = image::load_from_memory(&png).unwrap().to_rgb8();
        assert_eq!(image.dimensions(), (100, 200));
        assert_eq!(
            image.get_pixel(50, 15),
            &EDIT,
            "inside the edit, above its hint bar"
        );
        assert_eq!(image.get_pixel(50, 150), &BACKGROUND);
        let dark = image::load_from_memory(&render(100, 200, None))
            .unwrap()
            .to_rgb8();
        assert!(dark.pixels().all(|p| p.0 == [0, 0, 0]));
    }
}
