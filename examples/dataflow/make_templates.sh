#!/bin/sh
# Builds the template documents of templates/ from sources/ with LibreOffice, reproducibly:
# HTML → .docx, CSV → .xlsx, flat ODF presentations (.fodp) → .pptx, each app's description.json
# copied beside them. Runs headless with a private, temporary LibreOffice profile, so it neither
# needs nor disturbs a running LibreOffice. Needs soffice (libreoffice-writer, -calc, -impress).
#
#   examples/dataflow/make_templates.sh        # from anywhere
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v soffice >/dev/null || { echo "soffice is missing: apt-get install libreoffice-writer libreoffice-calc libreoffice-impress" >&2; exit 1; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
convert() { # app filter source...
    app=$1 filter=$2
    shift 2
    mkdir -p "$here/templates/$app"
    soffice --headless --norestore "-env:UserInstallation=file://$profile" \
        --convert-to "$filter" --outdir "$here/templates/$app" "$@" >/dev/null 2>&1
    cp "$here/sources/$app/description.json" "$here/templates/$app/"
}
convert word "docx:MS Word 2007 XML" "$here"/sources/word/*.html
convert excel "xlsx:Calc MS Excel 2007 XML" "$here"/sources/excel/*.csv
convert powerpoint "pptx:Impress MS PowerPoint 2007 XML" "$here"/sources/powerpoint/*.fodp
for app in word excel powerpoint; do
    for f in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))))" "$here/templates/$app/description.json"); do
        [ -s "$here/templates/$app/$f" ] || { echo "make_templates: $app/$f was not made" >&2; exit 1; }
    done
done
echo "templates in $here/templates: $(cd "$here/templates" && ls */*.docx */*.xlsx */*.pptx | tr '\n' ' ')"
