#!/usr/bin/env node
// `tai`: the second name of `tai-interactions` (bin/tai-interactions.mjs), kept for scripts
// that call it from an installed package. Outside one, `npx tai` is somebody else's package:
// the docs always say `npx tai-interactions …`.
import './tai-interactions.mjs';
