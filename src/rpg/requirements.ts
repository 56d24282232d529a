/** PEP 503 normalisation, so "NumPy", "numpy" and "Py_Test" vs "py-test" compare equal. */
export const normalizeDistribution = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, "-");

/** The distribution a PEP 508 requirement names: "numpy>=1.24" -> "numpy", "pkg @ https://..." -> "pkg". */
export const distributionOf = (requirement: string): string => requirement.trim().split(/[\s<>=!~;[(@]/)[0] ?? "";
