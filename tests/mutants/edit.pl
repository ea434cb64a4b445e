#!/usr/bin/perl
# edit.pl FILE FUNCTION CODE: runs the Perl substitution CODE (s/.../.../)
# on the body of the C function FUNCTION in FILE, in place, and fails
# unless it changed something. The body is found by the function's name,
# not by line numbers: from the first "\n{\n" after a line naming
# "FUNCTION(" with no ";" in between (a definition, not a prototype or a
# call), to the next "\n}\n". FUNCTION may be "a|b": the first of them
# defined (a function renamed or replaced by a branch not yet merged).
# Exit 0 edited, 1 no longer applies, other: a bad edit or usage.
use strict;
use warnings;

die "usage: edit.pl FILE FUNCTION CODE\n" unless @ARGV == 3;
my ($file, $func, $code) = @ARGV;

open(my $in, '<', $file) or die "$file: $!\n";
my $src = do { local $/; <$in> };
close($in);

my ($open, $close) = (-1, -1);
NAME: for my $name (split /\|/, $func) {
	while ($src =~ /^[^\n;{}]*\b\Q$name\E\(/mg) {
		my $at = pos($src);
		my $ob = index($src, "\n{\n", $at);
		next if $ob < 0 || substr($src, $at, $ob - $at) =~ /[;{}]/;
		($open, $func) = ($ob + 1, $name);
		$close = index($src, "\n}\n", $open);
		last NAME;
	}
}
if ($open < 0 || $close < 0) {
	print STDERR "$file: no definition of $func()\n";
	exit 1;
}

local $_ = substr($src, $open, $close + 2 - $open);
my $before = $_;
my $n = eval $code;
die "$file: $func(): bad edit '$code': $@" if $@;
if (!$n || $_ eq $before) {
	print STDERR "$file: $func(): '$code' matches nothing\n";
	exit 1;
}
substr($src, $open, $close + 2 - $open) = $_;
open(my $out, '>', $file) or die "$file: $!\n";
print $out $src;
close($out) or die "$file: $!\n";
exit 0;
