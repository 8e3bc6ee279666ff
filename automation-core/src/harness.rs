pub struct Harness;
