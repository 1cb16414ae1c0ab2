/** Answer options of the set-up survey (spec §3). Each select starts with an empty "Select" option in the UI. */
export const MARKETING_SOURCES = [
  "Recommendation",
  "Google",
  "Meta",
  "Event",
  "Marketing content",
  "Review page",
  "Edu",
  "Partner",
  "Other",
] as const;

export const PLATFORMS = [
  "Revit",
  "SketchUp",
  "Rhino",
  "3ds Max",
  "Maya",
  "Cinema 4D",
  "Unreal",
  "Houdini",
  "Nuke",
  "Blender",
  "ArchiCAD",
  "Vectorworks",
  "Autocad",
  "Other",
] as const;

export const ROLES = [
  "Administrator",
  "Architect",
  "BIM Manager",
  "Business Owner",
  "Construction Specialist",
  "Interior Designer",
  "Designer - Product",
  "Director",
  "Educator",
  "Engineer",
  "Project Manager",
  "Student",
  "3D Artist",
  "Technical Director",
  "VFX Supervisor",
  "Unknown",
  "Other",
] as const;

/** Product and company names are shown as they are; every other option has words in the catalogs (setup.options). */
export const OPTION_PROPER_NAMES: ReadonlySet<string> = new Set([
  "Google",
  "Meta",
  ...PLATFORMS.filter((p) => p !== "Other"),
]);
