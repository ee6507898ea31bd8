// The shape every figure module returns: one measured value beside a floor from the same run.

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** What the floor is, in a few words (shown in the table). */
  floorName: string;
  floor: number;
  floorUnit: string;
  /** value / floor. */
  ratio: number;
  parameters: Record<string, unknown>;
}

/** One figure group of RESULTS.md: its rows and the paragraph that says how to read them. */
export interface Section {
  title: string;
  about: string;
  figures: Figure[];
  /** Anything odd the figure saw (a server warning, a call that did not return): kept as a note. */
  warnings?: string[];
}

/** What every figure module gets from the orchestrator. */
export interface BenchContext {
  redisUrl: string;
  log(line: string): void;
}

export function figure(f: Omit<Figure, 'ratio'>): Figure {
  const ratio = f.floor === 0 ? Number.NaN : Math.round((f.value / f.floor) * 1000) / 1000;
  // Spelled out so results.json lists the fields in this order, parameters last.
  return {
    name: f.name,
    value: f.value,
    unit: f.unit,
    floorName: f.floorName,
    floor: f.floor,
    floorUnit: f.floorUnit,
    ratio,
    parameters: f.parameters,
  };
}
