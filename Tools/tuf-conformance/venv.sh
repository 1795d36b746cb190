# Sourced by run.sh here and by Tools/tuf-interop/run.sh: makes (or reuses) the virtual
# environment with the pinned Python packages of requirements.txt and sets $venv (absolute) and
# $python. TUFC_VENV overrides its place (default .build/tufc).
venv="${TUFC_VENV:-.build/tufc}"
requirements=Tools/tuf-conformance/requirements.txt
if [ ! -x "$venv/bin/pytest" ] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r "$requirements"
    cp "$requirements" "$venv/requirements.txt"
fi
venv="$(cd "$venv" && pwd)"
python="$venv/bin/python"
