package luabind

// RaceEnabled is raceEnabled for the tests of package luabind_test.
const RaceEnabled = raceEnabled
