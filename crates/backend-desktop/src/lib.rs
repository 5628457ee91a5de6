//! deft's Linux desktop tool server: AT-SPI controls, XTest input, screenshots, the managed virtual desktop.
