//! The AOSP Calculator (`com.android.calculator2`): its display (`formula`, `result`), the
//! numeric pad (`digit_0`…`digit_9`, `dec_point`, `eq`) and the operator pad (`del` — `clr`
//! once a result shows, as AOSP swaps them —, `op_div`, `op_mul`, `op_sub`, `op_add`), with
//! real arithmetic: `×`/`÷` before `+`/`−`, left to right.

use super::{App, Effect, Hit, STATUS_BAR, Size, activity};
use crate::adb_double::phone::view::{Rect, View};

const PACKAGE: &str = "com.android.calculator2";

/// The operators as the calculator shows them, with their ids and spoken names.
const OPERATORS: [(char, &str, &str); 4] = [
    ('÷', "op_div", "divide"),
    ('×', "op_mul", "multiply"),
    ('−', "op_sub", "minus"),
    ('+', "op_add", "plus"),
];

/// The calculator's state.
#[derive(Debug, Default)]
pub(crate) struct Calculator {
    formula: String,
    result: String,
}

fn id(name: &str) -> String {
    format!("{PACKAGE}:id/{name}")
}

impl Calculator {
    fn press(&mut self, key: char) {
        if !self.result.is_empty() {
            let continues =
                OPERATORS.iter().any(|(op, ..)| *op == key) && self.result.parse::<f64>().is_ok();
            self.formula = if continues {
                self.result.clone()
            } else {
                String::new()
            };
            self.result.clear();
        }
        let is_op = |c: char| OPERATORS.iter().any(|(op, ..)| *op == c);
        if is_op(key) {
            if self.formula.ends_with(is_op) {
                self.formula.pop();
            }
            if self.formula.is_empty() && key != '−' {
                return;
            }
        }
        self.formula.push(key);
    }

    fn equals(&mut self) {
        if self.formula.is_empty() {
            return;
        }
        self.result = match evaluate(&self.formula) {
            Some(value) if value.is_finite() => format_number(value),
            Some(_) => "Can't divide by 0".into(),
            None => "Bad expression".into(),
        };
    }

    fn button(&self, name: &str, text: &str, desc: &str, bounds: Rect) -> View {
        View::new("android.widget.Button", PACKAGE, bounds)
            .id(&id(name))
            .text(text)
            .desc(desc)
            .clickable()
    }

    fn numeric_pad(&self, size: Size, top: i32) -> View {
        let width = size.width * 3 / 4;
        let (cell_w, cell_h) = (width / 3, (size.height - top) / 4);
        let keys = ["7", "8", "9", "4", "5", "6", "1", "2", "3", ".", "0", "="];
        let buttons = keys
            .iter()
            .enumerate()
            .map(|(i, key)| {
                let (col, row) = (i as i32 % 3, i as i32 / 3);
                let bounds = Rect::new(
                    col * cell_w,
                    top + row * cell_h,
                    (col + 1) * cell_w,
                    top + (row + 1) * cell_h,
                );
                match *key {
                    "." => self.button("dec_point", ".", "point", bounds),
                    "=" => self.button("eq", "=", "equals", bounds),
                    digit => self.button(&format!("digit_{digit}"), digit, "", bounds),
                }
            })
            .collect();
        View::new(
            "android.view.ViewGroup",
            PACKAGE,
            Rect::new(0, top, width, size.height),
        )
        .id(&id("pad_numeric"))
        .children(buttons)
    }

    fn operator_pad(&self, size: Size, top: i32) -> View {
        let left = size.width * 3 / 4;
        let cell_h = (size.height - top) / 5;
        let at = |row: i32| {
            Rect::new(
                left,
                top + row * cell_h,
                size.width,
                top + (row + 1) * cell_h,
            )
        };
        let mut buttons = vec![if self.result.is_empty() {
            let mut del = self.button("del", "", "delete", at(0));
            del.class = "android.widget.ImageButton".into();
            del
        } else {
            self.button("clr", "CLR", "clear", at(0))
        }];
        for (row, (op, name, desc)) in OPERATORS.iter().enumerate() {
            buttons.push(self.button(name, &op.to_string(), desc, at(row as i32 + 1)));
        }
        View::new(
            "android.view.ViewGroup",
            PACKAGE,
            Rect::new(left, top, size.width, size.height),
        )
        .id(&id("pad_operator"))
        .children(buttons)
    }
}

impl App for Calculator {
    fn screen(&self, size: Size) -> View {
        let pads_top = size.height * 3 / 8;
        let text = |name: &str, text: &str, bounds: Rect| {
            View::new("android.widget.TextView", PACKAGE, bounds)
                .id(&id(name))
                .text(text)
        };
        let display = View::new(
            "android.view.ViewGroup",
            PACKAGE,
            Rect::new(0, STATUS_BAR, size.width, pads_top),
        )
        .id(&id("display"))
        .children(vec![
            text(
                "formula",
                &self.formula,
                Rect::new(0, STATUS_BAR + 150, size.width, pads_top - 260),
            ),
            text(
                "result",
                &self.result,
                Rect::new(0, pads_top - 250, size.width, pads_top - 20),
            ),
        ]);
        activity(
            PACKAGE,
            size,
            vec![
                display,
                self.numeric_pad(size, pads_top),
                self.operator_pad(size, pads_top),
            ],
        )
    }

    fn tap(&mut self, hit: &Hit) -> Effect {
        let name = hit.id.strip_prefix(&format!("{PACKAGE}:id/")).unwrap_or("");
        match name {
            "eq" => self.equals(),
            "del" => {
                self.formula.pop();
            }
            "clr" => {
                self.formula.clear();
                self.result.clear();
            }
            "dec_point" => self.press('.'),
            _ => {
                if let Some(digit) = name.strip_prefix("digit_").and_then(|d| d.chars().next()) {
                    self.press(digit);
                } else if let Some((op, ..)) = OPERATORS.iter().find(|(_, n, _)| *n == name) {
                    self.press(*op);
                }
            }
        }
        Effect::Stay
    }

    fn display(&self) -> Option<(String, String)> {
        Some((self.formula.clone(), self.result.clone()))
    }
}

/// The value of a formula of numbers and `+ − × ÷` (a leading `−` negates the first number);
/// `None` when it is no formula (two operators in a row, a dangling one, `1.2.3`).
pub(crate) fn evaluate(formula: &str) -> Option<f64> {
    let mut numbers: Vec<f64> = Vec::new();
    let mut ops: Vec<char> = Vec::new();
    let mut current = String::new();
    for (i, c) in formula.chars().enumerate() {
        if c.is_ascii_digit() || c == '.' || (c == '−' && i == 0) {
            current.push(if c == '−' { '-' } else { c });
        } else if OPERATORS.iter().any(|(op, ..)| *op == c) {
            numbers.push(current.parse().ok()?);
            current.clear();
            ops.push(c);
        } else {
            return None;
        }
    }
    numbers.push(current.parse().ok()?);
    // × and ÷ first, folding into the running term; then + and − left to right
    let mut terms = vec![numbers[0]];
    let mut signs = Vec::new();
    for (op, value) in ops.into_iter().zip(numbers.into_iter().skip(1)) {
        match op {
            '×' => *terms.last_mut()? *= value,
            '÷' => *terms.last_mut()? /= value,
            sign => {
                signs.push(sign);
                terms.push(value);
            }
        }
    }
    let mut total = terms[0];
    for (sign, value) in signs.into_iter().zip(terms.into_iter().skip(1)) {
        total = if sign == '+' {
            total + value
        } else {
            total - value
        };
    }
    Some(total)
}

/// A result as the calculator shows it: integers without a point, others to 10 significant
/// digits without trailing zeros, a minus sign as `−`.
pub(crate) fn format_number(value: f64) -> String {
    let text = if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        let digits = (9 - value.abs().log10().floor() as i32).clamp(0, 15) as usize;
        let fixed = format!("{value:.digits$}");
        fixed.trim_end_matches('0').trim_end_matches('.').to_owned()
    };
    text.replace('-', "−")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_computed_with_precedence() {
        assert_eq!(evaluate("7+8"), Some(15.0));
        assert_eq!(evaluate("2+3×4"), Some(14.0));
        assert_eq!(evaluate("−6÷4"), Some(-1.5));
        assert_eq!(evaluate("10−2−3"), Some(5.0));
        assert_eq!(evaluate("7+"), None);
        assert_eq!(evaluate("1.2.3"), None);
        assert_eq!(format_number(15.0), "15");
        assert_eq!(format_number(-1.5), "−1.5");
        assert_eq!(format_number(1.0 / 3.0), "0.3333333333");
        assert_eq!(format_number(2.0 / 3.0 * 100.0), "66.66666667");
    }

    #[test]
    fn keys_build_the_formula_and_equals_the_result() {
        let mut calc = Calculator::default();
        for key in ['7', '+', '×', '8'] {
            calc.press(key);
        }
        assert_eq!(calc.formula, "7×8", "a second operator replaces the first");
        calc.equals();
        assert_eq!(calc.result, "56");
        calc.press('−');
        assert_eq!((calc.formula.as_str(), calc.result.as_str()), ("56−", ""));
        calc.press('6');
        calc.equals();
        assert_eq!(calc.result, "50");
        calc.press('1');
        assert_eq!(calc.formula, "1", "a digit after a result starts anew");
        calc.press('÷');
        calc.press('0');
        calc.equals();
        assert_eq!(calc.result, "Can't divide by 0");
    }
}
