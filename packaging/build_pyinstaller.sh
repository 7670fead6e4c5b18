#!/usr/bin/env bash
# Build Hermes Tray as a PyInstaller one-folder bundle: dist/hermes-tray/hermes-tray
#
#   bash packaging/build_pyinstaller.sh            # uses .venv/bin/python
#   PYTHON=/path/to/python bash packaging/build_pyinstaller.sh
#
# Needs: pyinstaller in that Python (pip install -e ".[package]"); on Debian's system Python
# also the apt packages libpython3.11 and binutils. Builds for the OS it runs on only:
# PyInstaller cannot cross-build (see packaging/README.md for macOS and Windows).
#
# What the options are for (each one was needed, see shared/stack.md §6):
#   --collect-submodules desktop     cli.py imports desktop.app / desktop.gateway.doctor with
#                                    importlib, which PyInstaller's import scan cannot see
#   --collect-submodules/-data desktop_notifier
#                                    without them: "No module named desktop_notifier.resources"
#   --collect-submodules keyring.backends, --copy-metadata keyring
#                                    keyring finds its backends through entry points
#   --collect-submodules tree_sitter, tree_sitter_bash
#                                    the bash grammar is a compiled extension (_binding) that
#                                    tree_sitter_bash imports relatively; named so a future
#                                    lazy import cannot drop it silently
#   --collect-data confusable_homoglyphs
#                                    its Unicode tables are JSON files it opens from its own
#                                    folder (the look-alike letters test)
#   --add-data resources:desktop/resources
#                                    icons and desktop files, where desktop.ui.icons looks for
#                                    them in a bundle
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
DIST=${DIST:-$ROOT/dist}
WORK=${WORK:-$ROOT/build/pyinstaller}
APP_ID=io.github.hermes_tray.HermesTray
NAME=hermes-tray

if ! "$PYTHON" -m PyInstaller --version >/dev/null 2>&1; then
    echo "error: PyInstaller is not installed in $PYTHON; run: $PYTHON -m pip install 'pyinstaller>=6'" >&2
    exit 2
fi

sep=":"
extra=()
case "$(uname -s)" in
    Darwin)
        # A tray app: a real .app bundle, no console. LSUIElement (no Dock icon) is set below.
        extra+=(--windowed --osx-bundle-identifier "$APP_ID")
        ;;
    MINGW* | MSYS* | CYGWIN*)
        sep=";"  # --add-data uses the platform's path-list separator
        extra+=(--windowed)
        ;;
esac

cd "$ROOT"
start=$(date +%s)
"$PYTHON" -m PyInstaller \
    --noconfirm --clean --onedir \
    --name "$NAME" \
    --distpath "$DIST" --workpath "$WORK" --specpath "$WORK" \
    --paths "$ROOT" \
    --collect-submodules desktop \
    --collect-submodules desktop_notifier --collect-data desktop_notifier \
    --collect-submodules keyring.backends --copy-metadata keyring \
    --collect-submodules tree_sitter --collect-submodules tree_sitter_bash \
    --collect-data confusable_homoglyphs \
    --add-data "$ROOT/resources${sep}desktop/resources" \
    ${extra[@]+"${extra[@]}"} \
    "$ROOT/packaging/entry.py"
end=$(date +%s)

if [ "$(uname -s)" = Darwin ]; then
    plist="$DIST/$NAME.app/Contents/Info.plist"
    /usr/libexec/PlistBuddy -c "Add :LSUIElement bool true" "$plist" 2>/dev/null \
        || /usr/libexec/PlistBuddy -c "Set :LSUIElement true" "$plist"
fi

size=$(du -sh "$DIST/$NAME" | cut -f1)
echo "built $DIST/$NAME in $((end - start)) s, $size"
