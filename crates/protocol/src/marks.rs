//! Set-of-marks annotation, the same on every device that draws it (the desktop, phones): each
//! control's box and its id drawn on a screenshot, with a built-in 3×5 bitmap font for the
//! digits (ids are decimal), scaled ×2; and reading a mark back, for tests.

/// An RGB image of a screen area.
#[derive(Debug, Clone)]
pub struct RgbImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Screen position of the top-left pixel.
    pub origin: (i32, i32),
    /// RGB bytes, row by row.
    pub pixels: Vec<u8>,
}

/// Glyphs of 0–9, 3 columns × 5 rows, one row per 3 bits (MSB = left).
const DIGITS: [[u8; 5]; 10] = [
    [0b111, 0b101, 0b101, 0b101, 0b111],
    [0b010, 0b110, 0b010, 0b010, 0b111],
    [0b111, 0b001, 0b111, 0b100, 0b111],
    [0b111, 0b001, 0b111, 0b001, 0b111],
    [0b101, 0b101, 0b111, 0b001, 0b001],
    [0b111, 0b100, 0b111, 0b001, 0b111],
    [0b111, 0b100, 0b111, 0b101, 0b111],
    [0b111, 0b001, 0b010, 0b010, 0b010],
    [0b111, 0b101, 0b111, 0b101, 0b111],
    [0b111, 0b101, 0b111, 0b001, 0b111],
];

/// Pixel scale of the font.
pub const SCALE: i32 = 2;
/// Box and label colour (red).
pub const MARK: [u8; 3] = [230, 20, 20];
/// Label text colour.
pub const TEXT: [u8; 3] = [255, 255, 255];

/// Width and height in pixels of the label for `id` (1 px padding around the digits).
pub fn label_size(id: &str) -> (i32, i32) {
    let n = id.chars().filter(char::is_ascii_digit).count() as i32;
    (n * 4 * SCALE + SCALE, 5 * SCALE + 2 * SCALE)
}

fn put(img: &mut RgbImage, x: i32, y: i32, c: [u8; 3]) {
    if x < 0 || y < 0 || x >= img.width as i32 || y >= img.height as i32 {
        return;
    }
    let i = (y as usize * img.width as usize + x as usize) * 3;
    img.pixels[i..i + 3].copy_from_slice(&c);
}

/// Draws a 2-px box around screen rect `rect` and the id label at its top-left corner.
pub fn mark(img: &mut RgbImage, rect: [i32; 4], id: &str) {
    let (ox, oy) = img.origin;
    let [l, t, r, b] = [
        rect[0] - ox,
        rect[1] - oy,
        rect[2] - ox - 1,
        rect[3] - oy - 1,
    ];
    for k in 0..2 {
        for x in l..=r {
            put(img, x, t + k, MARK);
            put(img, x, b - k, MARK);
        }
        for y in t..=b {
            put(img, l + k, y, MARK);
            put(img, r - k, y, MARK);
        }
    }
    let (w, h) = label_size(id);
    for y in t..t + h {
        for x in l..l + w {
            put(img, x, y, MARK);
        }
    }
    let mut x0 = l + SCALE;
    for ch in id.chars() {
        let Some(d) = ch.to_digit(10) else { continue };
        for (row, bits) in DIGITS[d as usize].iter().enumerate() {
            for col in 0..3 {
                if bits & (0b100 >> col) != 0 {
                    for sy in 0..SCALE {
                        for sx in 0..SCALE {
                            put(
                                img,
                                x0 + col * SCALE + sx,
                                t + SCALE + row as i32 * SCALE + sy,
                                TEXT,
                            );
                        }
                    }
                }
            }
        }
        x0 += 4 * SCALE;
    }
}

/// Reads the digits of an annotated screenshot's mark (as `capture_window_screenshot` with
/// `annotated: true` draws them) at a label's top-left (screen) corner; used by tests to check
/// that marks sit where the rects say.
pub fn read_label(img: &RgbImage, at: (i32, i32), digits: usize) -> Option<String> {
    let (ox, oy) = img.origin;
    let (l, t) = (at.0 - ox, at.1 - oy);
    let get = |x: i32, y: i32| -> Option<[u8; 3]> {
        if x < 0 || y < 0 || x >= img.width as i32 || y >= img.height as i32 {
            return None;
        }
        let i = (y as usize * img.width as usize + x as usize) * 3;
        Some([img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]])
    };
    let mut out = String::new();
    for k in 0..digits as i32 {
        let x0 = l + SCALE + k * 4 * SCALE;
        let mut glyph = [0u8; 5];
        for (row, g) in glyph.iter_mut().enumerate() {
            for col in 0..3 {
                let px = get(x0 + col * SCALE, t + SCALE + row as i32 * SCALE)?;
                if px == TEXT {
                    *g |= 0b100 >> col;
                } else if px != MARK {
                    return None;
                }
            }
        }
        let d = DIGITS.iter().position(|g| *g == glyph)?;
        out.push(char::from(b'0' + d as u8));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_reads_back_as_its_id() {
        let mut img = RgbImage {
            width: 100,
            height: 60,
            origin: (10, 20),
            pixels: vec![200; 100 * 60 * 3],
        };
        mark(&mut img, [30, 30, 90, 70], "4170");
        assert_eq!(read_label(&img, (30, 30), 4).as_deref(), Some("4170"));
        assert_eq!(read_label(&img, (60, 50), 4), None);
    }
}
